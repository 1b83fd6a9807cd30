# The expert bot's contract (_expert.pyx): a native bot that plays as a club player does, from
# what its seat may know (its hand, the cards played, the voids shown by play, the bottom it
# buried, the rules), each of its rules a bit of BotSpec.expert (shengji.Expert's settings).
# Its shows and revolutions are the greedy bot's; the driver (_driver.pxd) asks expert_answer.
from shengji.core._core cimport CardSet
from shengji.round._engine cimport Game
from shengji.bots._policies cimport BotSpec, EXPERT_FIGHT

# A cdef enum: Python reads the bits from RULES (_expert.pyx), as uint64 (the last ones do not
# fit a C int, which a cpdef enum's module attributes are made from).
cdef enum:                 # the rules, as bits of BotSpec.expert
    X_SECOND_LOW = 1       # second hand does not win a poor trick with a card a later seat beats
    X_THIRD_HIGH = 2       # a win sure to hold (no later opponent can beat it) before a cheap one
    X_FEED_SURE = 4        # points fed (and unloaded when void) only to a trick sure to be won
    X_SAFE_POINTS = 8      # no win with a point card that a later opponent can overtake
    X_DRAW_TRUMPS = 16     # the dealer's team, long in trumps, leads them while opponents hold any
    X_DEFEND_TRUMPS = 32   # a defender long in trumps leads them
    X_AVOID_VOIDS = 64     # no side-suit lead an opponent has shown it can ruff, if another is safe
    X_PARTNER_RUFF = 128   # leads a suit its partner has shown void in, for a ruff
    X_LONE_POINTS = 256    # no lead of a lone point card a higher unseen card beats
    X_BURY = 512           # buries by the value of its cards as tricks (expert_bury)
    X_COUNT = 1024         # counts the suits: few unseen cards left, any seat may be void
    X_KEEP_TOP = 2048      # keeps its top trump, if no unseen card beats it, for the last trick
    X_WEIGH = 4096         # weighs a follow's points won or lost against the cards it spends
    X_PAIR_LEADS = 8192    # leads its lowest pair without points of the suit it leads
    X_SHORT_LEADS = 16384  # leads its shortest side suit, not its longest
    X_ODDS = 32768         # weigh: a win that may be beaten holds by the odds of the unseen cards
    X_TRACTORS = 65536     # pair_leads: the pair led extended upward into a tractor
    X_ONE_SURE = 131072    # leads its sure side units one at a time, not thrown together
    X_FORCE = 262144       # a defender leads a low card of a suit the dealer has shown void in
    X_SAFE_BOTTOM = 524288 # value_bury: no point card buried where another card will do
    X_VOID_TRUMP = 1048576 # every side suit held may be ruffed: a low trump led instead
    X_FIGHT = EXPERT_FIGHT # overturns an opponent's declaration when it loses no trumps by it
    X_GUARD_BOTTOM = 4194304  # keep_top: the burier of points keeps its top trump anyway
    X_WHOLE_PAIRS = 8388608   # pair_leads: a pair with points led whole, never one of its cards
    X_VOID_ODDS = 16777216    # odds: a later seat not shown void may be void, and ruff
    X_PAIR_SUITS = 33554432   # pair_leads: a safe side suit holding a pair is led first
    X_TRACTOR_FIRST = 67108864  # its longest side tractor no opponent may ruff, led first
    X_TRUMP_TRACTOR = 134217728  # its longest trump tractor led before anything
    X_HIGH_PAIRS = 268435456  # the dealer's team leads its highest safe side pair
    X_SHORT_BURY = 536870912  # value_bury: greedy's bury when short of trumps
    X_LATE_PAIRS = 1073741824 # the dealer's team, late, leads its highest trump (or side) pair
    X_DEFENDER_PAIRS = 2147483648  # a defender, late, leads its highest side pair
    X_KEEP_PAIRS = 4294967296      # a follow splits a pair of the hand only for much more
    X_DRAW_HIGH = 8589934592       # draw_trumps: its highest trump, the opponents holding no more
    X_DRAW_FOLLOW = 17179869184    # weigh: following its partner's trump draw, trumps cost less
    X_SURE_THROWS = 34359738368    # sure side units thrown where a whole ruff is unlikely


cdef int expert_answer(Game* g, const BotSpec* b, CardSet* cards, bint* flag) noexcept nogil
