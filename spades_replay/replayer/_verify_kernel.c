/* The fast verifier's compiled kernel: the card work of spades_replay/replayer/verify.py, in C.
 *
 * Four functions, each the exact counterpart of a pure-Python function of verify.py, which
 * stays the reference (tests/test_verify.py and tests/test_verify_kernels.py hold the two
 * equal on every input they try):
 *
 *   holding(cards) -> int           _holding: the sum of the cards' bits (a card is bit
 *                                   13 * suit + rank, the letters of suits and ranks those
 *                                   of spades_replay/engine/cards.py, read at import)
 *   draft2(deck, draft) -> (int, int) | None
 *                                   _draft2: the holdings of the first and second drafter,
 *                                   None when the deck repeats a card
 *   play2(plays, lead, other, leader, broken) -> (int, int) | None          _play2
 *   play4(plays, holdings, leader, broken) -> (int, int, int, int) | None   _play4
 *
 * The play functions answer the tricks won by each seat of a complete hand, or None when a
 * card is illegal: not in its player's hand, not following suit while holding the suit led,
 * or a spade led before spades are broken while the leader holds another suit (``broken``
 * says whether spades may be led from the start). Spades are broken by the first trick that
 * holds a spade. The winner of a trick is the highest spade in it, else the highest card of
 * the suit led. Unlike the Python functions, which test "was it held" once at the end of the
 * hand, these test every card as it is played; both answer None for the same hands.
 *
 * A card name that is not one of the 52 raises KeyError, as in the Python functions; a
 * sequence of the wrong length, or a seat or holding out of range, raises ValueError or
 * OverflowError (the verifier passes none of these: the format's models and its own length
 * checks keep them out). The module keeps no state between calls, but for the card letters
 * it reads from the engine when it is imported. It is built where a C compiler is found (an
 * optional extension: without one, the package installs without it and verify.py runs its
 * Python). It compiles cleanly under -Wall -Wextra -Werror (tests/test_verify_kernels.py).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

static signed char RANK_OF[256]; /* rank letter -> 0..12, or -1 (read_letters) */
static signed char SUIT_OF[256]; /* suit letter -> 0..3, or -1 (read_letters) */

#define NON_SPADES ((UINT64_C(1) << 39) - 1)
#define SUIT_MASK(suit) (UINT64_C(0x1FFF) << (13 * (suit)))

/* The card number of a card name, or -1 with KeyError set. */
static int card_of(PyObject *name)
{
    if (PyUnicode_Check(name) && PyUnicode_GET_LENGTH(name) == 2 &&
        PyUnicode_KIND(name) == PyUnicode_1BYTE_KIND) {
        const unsigned char *text = PyUnicode_1BYTE_DATA(name);
        int rank = RANK_OF[text[0]];
        int suit = SUIT_OF[text[1]];
        if (rank >= 0 && suit >= 0) {
            return 13 * suit + rank;
        }
    }
    PyErr_SetObject(PyExc_KeyError, name);
    return -1;
}

/* The card numbers of ``count`` card names, into ``cards``; -1 with an exception set. */
static int cards_of(PyObject *sequence, Py_ssize_t count, int *cards)
{
    PyObject *items = PySequence_Fast(sequence, "the plays must be a sequence");
    if (items == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(items) != count) {
        PyErr_Format(PyExc_ValueError, "expected %zd cards, got %zd", count,
                     PySequence_Fast_GET_SIZE(items));
        Py_DECREF(items);
        return -1;
    }
    PyObject **names = PySequence_Fast_ITEMS(items);
    for (Py_ssize_t index = 0; index < count; index++) {
        cards[index] = card_of(names[index]);
        if (cards[index] < 0) {
            Py_DECREF(items);
            return -1;
        }
    }
    Py_DECREF(items);
    return 0;
}

/* A leader argument: 0 <= leader < seats, or -1 with ValueError set. */
static int seat_of(int leader, int seats)
{
    if (leader < 0 || leader >= seats) {
        PyErr_Format(PyExc_ValueError, "no seat %d among %d", leader, seats);
        return -1;
    }
    return leader;
}

/* A holding argument: an int of at most 64 bits, or -1 with an exception set. */
static int mask_of(PyObject *value, uint64_t *mask)
{
    *mask = PyLong_AsUnsignedLongLong(value);
    return *mask == (uint64_t)-1 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *holding(PyObject *Py_UNUSED(module), PyObject *cards)
{
    PyObject *items = PySequence_Fast(cards, "the cards must be a sequence");
    if (items == NULL) {
        return NULL;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(items);
    if (count > 52) {
        Py_DECREF(items);
        return PyErr_Format(PyExc_ValueError, "more than 52 cards: %zd", count);
    }
    PyObject **names = PySequence_Fast_ITEMS(items);
    uint64_t sum = 0; /* at most 52 bits below 2**52: no overflow */
    for (Py_ssize_t index = 0; index < count; index++) {
        int card = card_of(names[index]);
        if (card < 0) {
            Py_DECREF(items);
            return NULL;
        }
        sum += UINT64_C(1) << card;
    }
    Py_DECREF(items);
    return PyLong_FromUnsignedLongLong(sum);
}

static PyObject *draft2(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *deck, *draft;
    if (!PyArg_ParseTuple(args, "OU:draft2", &deck, &draft)) {
        return NULL;
    }
    int cards[52];
    if (cards_of(deck, 52, cards) < 0) {
        return NULL;
    }
    if (PyUnicode_GET_LENGTH(draft) != 26 || PyUnicode_KIND(draft) != PyUnicode_1BYTE_KIND) {
        return PyErr_Format(PyExc_ValueError, "a draft is 26 letters K or D");
    }
    const unsigned char *turns = PyUnicode_1BYTE_DATA(draft);
    uint64_t seen = 0, kept[2] = {0, 0};
    for (int index = 0; index < 52; index++) {
        uint64_t bit = UINT64_C(1) << cards[index];
        if (seen & bit) {
            Py_RETURN_NONE;
        }
        seen |= bit;
    }
    for (int turn = 0; turn < 26; turn++) {
        if (turns[turn] != 'K' && turns[turn] != 'D') {
            return PyErr_Format(PyExc_ValueError, "a draft is 26 letters K or D");
        }
        kept[turn & 1] |= UINT64_C(1) << cards[2 * turn + (turns[turn] == 'D')];
    }
    return Py_BuildValue("(KK)", (unsigned long long)kept[0], (unsigned long long)kept[1]);
}

/* The tricks of a complete hand of ``seats`` players (2 or 4), led first by ``leader``, from
 * each seat's holding in ``held``: the tricks won by each seat into ``won``, and 1; or 0 as
 * soon as a card is illegal. */
static int tricks_won(const int *cards, uint64_t *held, int seats, int leader, int broken,
                      int *won)
{
    for (int trick = 0; trick < 13; trick++) {
        const int *card = cards + seats * trick;
        int led = card[0] / 13;
        uint64_t bit = UINT64_C(1) << card[0];
        if (!(held[leader] & bit)) {
            return 0;
        }
        if (!broken && led == 3 && (held[leader] & NON_SPADES)) {
            return 0;
        }
        held[leader] ^= bit;
        int best = 0, spade = led == 3;
        for (int position = 1; position < seats; position++) {
            int seat = (leader + position) % seats, suit = card[position] / 13;
            bit = UINT64_C(1) << card[position];
            if (!(held[seat] & bit)) {
                return 0;
            }
            if (suit != led && (held[seat] & SUIT_MASK(led))) {
                return 0;
            }
            held[seat] ^= bit;
            int best_suit = card[best] / 13;
            if ((suit == best_suit && card[position] > card[best]) ||
                (suit == 3 && best_suit != 3)) {
                best = position;
            }
            spade |= suit == 3;
        }
        if (spade) {
            broken = 1;
        }
        leader = (leader + best) % seats;
        won[leader] += 1;
    }
    return 1;
}

static PyObject *play2(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *plays, *lead, *other;
    int leader, broken;
    if (!PyArg_ParseTuple(args, "OOOip:play2", &plays, &lead, &other, &leader, &broken)) {
        return NULL;
    }
    int cards[26];
    if (seat_of(leader, 2) < 0 || cards_of(plays, 26, cards) < 0) {
        return NULL;
    }
    uint64_t held[2];
    if (mask_of(lead, &held[leader]) < 0 || mask_of(other, &held[1 - leader]) < 0) {
        return NULL;
    }
    int won[2] = {0, 0};
    if (!tricks_won(cards, held, 2, leader, broken, won)) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(ii)", won[0], won[1]);
}

static PyObject *play4(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *plays, *holdings;
    int leader, broken;
    if (!PyArg_ParseTuple(args, "OOip:play4", &plays, &holdings, &leader, &broken)) {
        return NULL;
    }
    int cards[52];
    if (seat_of(leader, 4) < 0 || cards_of(plays, 52, cards) < 0) {
        return NULL;
    }
    PyObject *items = PySequence_Fast(holdings, "the holdings must be a sequence");
    if (items == NULL) {
        return NULL;
    }
    if (PySequence_Fast_GET_SIZE(items) != 4) {
        Py_DECREF(items);
        return PyErr_Format(PyExc_ValueError, "expected 4 holdings");
    }
    uint64_t held[4];
    for (int seat = 0; seat < 4; seat++) {
        if (mask_of(PySequence_Fast_GET_ITEM(items, seat), &held[seat]) < 0) {
            Py_DECREF(items);
            return NULL;
        }
    }
    Py_DECREF(items);
    int won[4] = {0, 0, 0, 0};
    if (!tricks_won(cards, held, 4, leader, broken, won)) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(iiii)", won[0], won[1], won[2], won[3]);
}

static PyMethodDef methods[] = {
    {"holding", holding, METH_O, "The sum of the cards' bits."},
    {"draft2", draft2, METH_VARARGS, "The holdings a draft keeps, or None for a bad deck."},
    {"play2", play2, METH_VARARGS, "Tricks won by each seat of a two-player hand, or None."},
    {"play4", play4, METH_VARARGS, "Tricks won by each seat of a four-player hand, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_verify_kernel",
    "The fast verifier's compiled kernel (see spades_replay/replayer/verify.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

/* The rank and suit letters of the card names, into RANK_OF and SUIT_OF: taken from the
 * engine (spades_replay.engine.cards.RANKS and SUITS, ASCII letters in card order), so that
 * the card names are spelt in one place; 0, or -1 with an exception set. */
static int read_letters(void)
{
    PyObject *cards = PyImport_ImportModule("spades_replay.engine.cards");
    if (cards == NULL) {
        return -1;
    }
    static const char *const names[2] = {"RANKS", "SUITS"};
    signed char *const tables[2] = {RANK_OF, SUIT_OF};
    const Py_ssize_t counts[2] = {13, 4};
    int status = 0;
    for (int which = 0; which < 2 && status == 0; which++) {
        PyObject *letters = PyObject_GetAttrString(cards, names[which]);
        if (letters == NULL) {
            status = -1;
            break;
        }
        Py_ssize_t size = 0;
        const char *text = NULL;
        if (PyUnicode_Check(letters)) {
            text = PyUnicode_AsUTF8AndSize(letters, &size);
        }
        if (text == NULL || size != counts[which]) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_ImportError,
                             "spades_replay.engine.cards.%s is not %zd letters", names[which],
                             counts[which]);
            }
            status = -1;
        } else {
            memset(tables[which], -1, 256);
            for (Py_ssize_t index = 0; index < size; index++) {
                tables[which][(unsigned char)text[index]] = (signed char)index;
            }
        }
        Py_DECREF(letters);
    }
    Py_DECREF(cards);
    return status;
}

PyMODINIT_FUNC PyInit__verify_kernel(void)
{
    if (read_letters() < 0) {
        return NULL;
    }
    return PyModule_Create(&module);
}
