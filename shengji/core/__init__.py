"""The card layer: the bitboard kernel (`_core`), the seeded deal (`_deal`), conditioned
deals, the kernel's result types and the checks of the numbers users pass. Imports nothing
above it."""
