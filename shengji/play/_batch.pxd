# The batch's contract for the other native modules (_table.pyx): the row writer, one place
# for a round's row in simulate's columns.
from libc.stdint cimport int64_t

from shengji.round._engine cimport Game


cdef struct RowColumns:
    # where write_row puts a round's values: row i of each of simulate's int16 columns
    # (ROUND_NAMES; those of DECLARATION_NAMES only, the rest NULL, for declarations only)
    short* dealer
    short* declarer           # -1: nobody declared
    short* trump_suit         # the index in cards.TRUMP_SUITS
    short* level
    short* deals
    short* overturns
    short* reinforced         # 0 or 1
    short* declarer_trumps    # -1: nobody declared
    short* defender_points
    short* trick_points
    short* bottom_points
    short* multiplier
    short* penalty
    short* dealer_holds       # 0 or 1
    short* rise
    short* tricks
    short* throws
    short* failed_throws


cdef RowColumns row_columns(dict cols) except *
cdef void write_row(const Game* g, RowColumns* c, int64_t i, bint play) noexcept nogil
