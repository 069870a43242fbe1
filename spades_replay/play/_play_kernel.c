/* Self-play's compiled kernel: the card play of one hand between the bots of
 * spades_replay/play/bots.py that choose from plain values (heuristic and random), in C.
 *
 * One function, the exact counterpart of _card_play in spades_replay/play/simulate.py, which
 * stays the reference (tests/test_play_kernel.py holds the two equal, card by card and
 * game by game, under every play option):
 *
 *   play_hand(holdings, leader, opening, spades_may_lead, bids, random_seats, choice)
 *       -> (plays, winners, won, held, broken)
 *
 * ``holdings`` holds each seat's cards as a mask (two or four seats; a card is bit
 * 13 * suit + rank, spades the highest suit), ``leader`` leads the first trick, with the card
 * ``opening`` when it is not -1 (2C under first_lead two_of_clubs), and ``spades_may_lead``
 * says whether a spade may be led before spades are broken. ``bids`` holds each seat's bid
 * (None, or an int: 0 for Nil, -1 for Blind Nil). The seats whose bits are set in
 * ``random_seats`` play as RandomBot.choose_card does: ``choice`` (the game's
 * random.Random.choice) picks among the legal cards in ascending order, so the game draws
 * from its generator exactly what the Python loop draws; the other seats play as
 * HeuristicBot.choose_card does. The answer is what _card_play gives: the 13 tricks' cards
 * in play order, each trick's winner, the tricks won by each seat, what is left in each hand
 * (nothing, once all 13 tricks are played), and whether a spade was played.
 *
 * The rules it states again, each as the engine states it (spades_replay/engine/tricks.py):
 * what may be played (legal_plays: follow suit when able; lead a spade only once spades may
 * be led or when holding nothing else) and what wins a trick (beats: the highest spade in
 * it, else the highest card of the suit led). A holding, a seat or a card out of range
 * raises ValueError or OverflowError; a choice that is not one of the cards offered raises
 * ValueError. It is built where a C compiler is found (an optional extension: without one
 * the package installs without it and simulate.py runs its Python). It compiles cleanly under
 * -Wall -Wextra -Werror (tests/test_play_kernel.py).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#define FIRST_SPADE 39
#define RANKS UINT64_C(0x1FFF)
#define NON_SPADES ((UINT64_C(1) << FIRST_SPADE) - 1)
#define SPADES (RANKS << FIRST_SPADE)
#define SUIT_MASK(suit) (RANKS << (13 * (suit)))
#define SIDE_ACES ((UINT64_C(1) << 12) | (UINT64_C(1) << 25) | (UINT64_C(1) << 38))
#define SPADE_KING (FIRST_SPADE + 11)
#define ALL_CARDS ((UINT64_C(1) << 52) - 1)

static uint64_t BEATERS[52]; /* for each card winning a trick so far, the cards that beat it */

static int lowest(uint64_t mask)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(mask);
#else
    int card = 0;
    while (!(mask >> card & 1)) {
        card++;
    }
    return card;
#endif
}

static int highest(uint64_t mask)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63 - __builtin_clzll(mask);
#else
    int card = 63;
    while (!(mask >> card & 1)) {
        card--;
    }
    return card;
#endif
}

/* beats: whether ``card`` beats ``best``, the card winning the trick so far. */
static int beats(int card, int best)
{
    return card > best && (card >= FIRST_SPADE || card / 13 == best / 13);
}

/* legal_plays: the cards of ``holding`` that may be played; ``led`` is -1 for a lead. */
static uint64_t legal_of(uint64_t holding, int led, int spades_may_lead)
{
    if (led < 0) {
        if (spades_may_lead || !(holding & NON_SPADES)) {
            return holding;
        }
        return holding & NON_SPADES;
    }
    uint64_t following = holding & SUIT_MASK(led);
    return following ? following : holding;
}

/* _cheapest: the lowest rank of a side suit (of two as low, the first suit), else the
 * lowest spade. */
static int cheapest(uint64_t mask)
{
    uint64_t side = mask & NON_SPADES;
    if (!side) {
        return lowest(mask);
    }
    int card = lowest((side | side >> 13 | side >> 26) & RANKS);
    while (!(side >> card & 1)) {
        card += 13;
    }
    return card;
}

/* _costliest: the highest spade, else the highest rank of a side suit (of two as high, the
 * first suit). */
static int costliest(uint64_t mask)
{
    if (mask & SPADES) {
        return highest(mask);
    }
    int card = highest((mask | mask >> 13 | mask >> 26) & RANKS);
    while (!(mask >> card & 1)) {
        card += 13;
    }
    return card;
}

/* What a seat to play sees (the fields of bots.Play). */
typedef struct {
    int count;        /* seats */
    int seat;
    uint64_t legal;
    const int *trick; /* the cards down, ``down`` of them */
    int down;
    int leader;
    int winning;
    const int *bid;   /* each seat's bid; has_bid says whether it has one */
    const int *has_bid;
    const int *won;
} Play;

/* HeuristicBot._side_need: tricks the seat's side still needs toward its contract. */
static int side_need(const Play *play)
{
    int contract = 0;
    int taken = 0;
    /* a side's seats: the seat alone in two-player, it and its partner (two on) in four */
    for (int seat = play->seat % 2; seat < play->count; seat += 2) {
        if (play->has_bid[seat] && play->bid[seat] > 0) {
            contract += play->bid[seat];
            taken += play->won[seat];
        }
    }
    return contract > taken ? contract - taken : 0;
}

/* HeuristicBot.choose_card (with its _lead). */
static int heuristic(const Play *play)
{
    const int seat = play->seat;
    const uint64_t legal = play->legal;
    const int nil = play->has_bid[seat] && play->bid[seat] <= 0 && play->won[seat] == 0;
    if (play->down == 0) {
        if (nil) {
            return cheapest(legal);
        }
        if (side_need(play) > 0) {
            uint64_t aces = legal & SIDE_ACES;
            if (aces) {
                return lowest(aces);
            }
            int top = highest(legal);
            if (top >= SPADE_KING) {
                return top;
            }
        }
        return cheapest(legal & NON_SPADES ? legal & NON_SPADES : legal);
    }
    const int best = play->trick[(play->winning - play->leader + play->count) % play->count];
    const uint64_t winners = legal & BEATERS[best];
    const uint64_t losers = legal & ~BEATERS[best];
    if (nil) {
        return costliest(losers ? losers : legal);
    }
    const int has_partner = play->count == 4;
    const int partner = seat ^ 2;
    const int partner_nil =
        has_partner && (play->has_bid[partner] ? play->bid[partner] : 0) <= 0;
    const int partner_winning = has_partner && play->winning == partner;
    if (partner_nil && partner_winning && winners) {
        return cheapest(winners);
    }
    const int need = side_need(play);
    if (need > 0 && winners && !(partner_winning && !partner_nil)) {
        int card = cheapest(winners);
        if (play->down == play->count - 1 || card % 13 >= 10 || card >= FIRST_SPADE) {
            return card;
        }
        return costliest(winners);
    }
    if (losers) {
        return need == 0 ? costliest(losers) : cheapest(losers);
    }
    return cheapest(legal);
}

/* RandomBot.choose_card: ``choice`` of the legal cards in ascending order; -1 with an
 * exception set. */
static int chosen(PyObject *choice, uint64_t legal)
{
    PyObject *cards = PyList_New(0);
    if (cards == NULL) {
        return -1;
    }
    for (uint64_t left = legal; left; left &= left - 1) {
        PyObject *card = PyLong_FromLong(lowest(left));
        if (card == NULL || PyList_Append(cards, card) < 0) {
            Py_XDECREF(card);
            Py_DECREF(cards);
            return -1;
        }
        Py_DECREF(card);
    }
    PyObject *picked = PyObject_CallOneArg(choice, cards);
    Py_DECREF(cards);
    if (picked == NULL) {
        return -1;
    }
    long card = PyLong_AsLong(picked);
    Py_DECREF(picked);
    if (card == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (card < 0 || card >= 52 || !(legal >> card & 1)) {
        PyErr_Format(PyExc_ValueError, "choice gave %ld, not one of the cards offered", card);
        return -1;
    }
    return (int)card;
}

static PyObject *int_tuple(const int *values, int count)
{
    PyObject *tuple = PyTuple_New(count);
    if (tuple == NULL) {
        return NULL;
    }
    for (int index = 0; index < count; index++) {
        PyObject *value = PyLong_FromLong(values[index]);
        if (value == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, index, value);
    }
    return tuple;
}

/* The seats' holdings and bids, read from ``holdings`` and ``bids``: the number of seats, or
 * -1 with an exception set. */
static int read_seats(PyObject *holdings, PyObject *bids, uint64_t *held, int *bid, int *has_bid)
{
    Py_ssize_t count = PySequence_Size(holdings);
    if (count < 0) {
        return -1;
    }
    if (count != 2 && count != 4) {
        PyErr_SetString(PyExc_ValueError, "holdings must hold two or four seats");
        return -1;
    }
    if (PySequence_Size(bids) != count) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "bids must hold one bid per seat");
        }
        return -1;
    }
    for (Py_ssize_t seat = 0; seat < count; seat++) {
        PyObject *holding = PySequence_GetItem(holdings, seat);
        if (holding == NULL) {
            return -1;
        }
        held[seat] = PyLong_AsUnsignedLongLong(holding);
        Py_DECREF(holding);
        if (PyErr_Occurred()) {
            return -1;
        }
        if (held[seat] & ~ALL_CARDS) {
            PyErr_SetString(PyExc_ValueError, "a holding holds a card past the 52");
            return -1;
        }
        PyObject *value = PySequence_GetItem(bids, seat);
        if (value == NULL) {
            return -1;
        }
        has_bid[seat] = value != Py_None;
        bid[seat] = has_bid[seat] ? PyLong_AsLong(value) : 0;
        Py_DECREF(value);
        if (PyErr_Occurred()) {
            return -1;
        }
        if (bid[seat] < -1 || bid[seat] > 13) {
            PyErr_SetString(PyExc_ValueError, "a bid is out of range");
            return -1;
        }
    }
    return (int)count;
}

static PyObject *play_hand(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *holdings;
    PyObject *bids;
    PyObject *choice;
    int leader;
    int opening;
    int spades_may_lead;
    unsigned int random_seats;
    if (!PyArg_ParseTuple(args, "OiipOIO", &holdings, &leader, &opening, &spades_may_lead,
                          &bids, &random_seats, &choice)) {
        return NULL;
    }
    uint64_t held[4];
    int bid[4];
    int has_bid[4];
    const int count = read_seats(holdings, bids, held, bid, has_bid);
    if (count < 0) {
        return NULL;
    }
    if (leader < 0 || leader >= count || opening < -1 || opening >= 52) {
        PyErr_SetString(PyExc_ValueError, "the leader or the opening card is out of range");
        return NULL;
    }
    int plays[52];
    int winners[13];
    int won[4] = {0, 0, 0, 0};
    int played = 0;
    int broken = 0;
    for (int number = 0; number < 13; number++) {
        int *trick = plays + played;
        int seat = leader;
        int winning = leader;
        int best = -1;
        for (int down = 0; down < count; down++) {
            uint64_t legal;
            if (opening >= 0) {
                legal = UINT64_C(1) << opening;
                opening = -1;
            } else {
                legal = legal_of(held[seat], down ? trick[0] / 13 : -1, spades_may_lead);
            }
            if (!legal) {
                PyErr_Format(PyExc_ValueError, "seat %d has no card to play", seat);
                return NULL;
            }
            int card;
            if (random_seats >> seat & 1) {
                card = chosen(choice, legal);
                if (card < 0) {
                    return NULL;
                }
            } else {
                Play play = {count, seat, legal, trick, down, leader, winning,
                             bid, has_bid, won};
                card = heuristic(&play);
            }
            held[seat] &= ~(UINT64_C(1) << card);
            if (card >= FIRST_SPADE) {
                spades_may_lead = broken = 1;
            }
            if (best < 0 || beats(card, best)) {
                best = card;
                winning = seat;
            }
            trick[down] = card;
            seat = (seat + 1) % count;
        }
        played += count;
        leader = winning;
        won[leader]++;
        winners[number] = leader;
    }
    PyObject *left = PyTuple_New(count);
    for (int seat = 0; left != NULL && seat < count; seat++) {
        PyObject *holding = PyLong_FromUnsignedLongLong(held[seat]);
        if (holding == NULL) {
            Py_CLEAR(left);
        } else {
            PyTuple_SET_ITEM(left, seat, holding);
        }
    }
    PyObject *cards = int_tuple(plays, played);
    PyObject *takers = int_tuple(winners, 13);
    PyObject *counts = int_tuple(won, count);
    PyObject *outcome = NULL;
    if (left != NULL && cards != NULL && takers != NULL && counts != NULL) {
        outcome = PyTuple_Pack(5, cards, takers, counts, left, broken ? Py_True : Py_False);
    }
    Py_XDECREF(left);
    Py_XDECREF(cards);
    Py_XDECREF(takers);
    Py_XDECREF(counts);
    return outcome;
}

static PyMethodDef methods[] = {
    {"play_hand", play_hand, METH_VARARGS,
     "The card play of one hand between heuristic and random bots (_card_play)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_play_kernel",
    "Self-play's compiled kernel (see spades_replay/play/simulate.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__play_kernel(void)
{
    for (int best = 0; best < 52; best++) {
        BEATERS[best] = 0;
        for (int card = 0; card < 52; card++) {
            if (beats(card, best)) {
                BEATERS[best] |= UINT64_C(1) << card;
            }
        }
    }
    return PyModule_Create(&module);
}
