/* The shape check's compiled kernel: the check of one hand of spades_replay/record/shape.py, in C.
 *
 *   hand(value, seats) -> bool      True only where shape.py's _hand(value, seats) answers
 *                                   True: a hand object (two-player when seats is 2,
 *                                   four-player when 4) that the format's models accept
 *   letters(ranks, suits) -> None   the rank and suit letters of the card names, in card
 *                                   order (shape.py gives them once, when it is imported)
 *
 * It answers False for every hand it is not sure of, and shape.py's _hand, which stays the
 * reference, then decides: a key that is no field of a hand, of its exchanges or of its
 * claims (an x- extension, or an exchange's "in_") is left to it. So the kernel only accepts
 * the plain shape of a hand: its fields, each the right JSON type (never true for 1, nor
 * 1.0), with the right number of items, card names, bids from 0 to 13 or "blind_nil", a
 * draft of 26 letters K or D, exchanges (a seat, and at most 13 cards out and in), and
 * claims within their ranges.
 * tests/test_shape.py holds the two equal. It keeps no state but the letters. It compiles
 * cleanly under -Wall -Wextra -Werror (tests/test_shape.py).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

static signed char RANK_OF[256]; /* rank letter -> 0..12, or -1 (letters) */
static signed char SUIT_OF[256]; /* suit letter -> 0..3, or -1 (letters) */
static int LETTERS_READ = 0;

#define POINTS 10000000L

enum {
    DECK,
    DRAFT,
    DEAL,
    BIDS,
    EXCHANGES,
    PLAYS,
    RESULT,
    TRICKS,
    POINTS_KEY,
    SCORES,
    BAGS,
    SEAT,
    OUT,
    IN,
    KEYS
};
static const char *const KEY_NAMES[KEYS] = {
    "deck",   "draft",  "deal",   "bids", "exchanges", "plays", "result",
    "tricks", "points", "scores", "bags", "seat",      "out",   "in"};
static PyObject *KEY[KEYS]; /* the keys, interned at import */

/* Whether ``name`` is one of the 52 card names. */
static int card_ok(PyObject *name)
{
    if (!PyUnicode_Check(name) || PyUnicode_GET_LENGTH(name) != 2 ||
        PyUnicode_KIND(name) != PyUnicode_1BYTE_KIND) {
        return 0;
    }
    const unsigned char *text = PyUnicode_1BYTE_DATA(name);
    return RANK_OF[text[0]] >= 0 && SUIT_OF[text[1]] >= 0;
}

/* Whether ``value`` is a list of ``low`` to ``high`` card names. */
static int cards_ok(PyObject *value, Py_ssize_t low, Py_ssize_t high)
{
    if (value == NULL || !PyList_CheckExact(value)) {
        return 0;
    }
    Py_ssize_t size = PyList_GET_SIZE(value);
    if (size < low || size > high) {
        return 0;
    }
    for (Py_ssize_t index = 0; index < size; index++) {
        if (!card_ok(PyList_GET_ITEM(value, index))) {
            return 0;
        }
    }
    return 1;
}

/* Whether ``value`` is an int (never a bool) from ``low`` to ``high``. */
static int int_ok(PyObject *value, long low, long high)
{
    if (!PyLong_CheckExact(value)) {
        return 0;
    }
    int overflow = 0;
    long number = PyLong_AsLongAndOverflow(value, &overflow);
    return !overflow && number >= low && number <= high;
}

/* Whether ``value`` is a list of ``count`` ints from ``low`` to ``high``. */
static int ints_ok(PyObject *value, Py_ssize_t count, long low, long high)
{
    if (!PyList_CheckExact(value) || PyList_GET_SIZE(value) != count) {
        return 0;
    }
    for (Py_ssize_t index = 0; index < count; index++) {
        if (!int_ok(PyList_GET_ITEM(value, index), low, high)) {
            return 0;
        }
    }
    return 1;
}

/* Whether ``value`` is a list of ``seats`` bids: 0 to 13, or "blind_nil". */
static int bids_ok(PyObject *value, Py_ssize_t seats)
{
    if (value == NULL || !PyList_CheckExact(value) || PyList_GET_SIZE(value) != seats) {
        return 0;
    }
    for (Py_ssize_t index = 0; index < seats; index++) {
        PyObject *bid = PyList_GET_ITEM(value, index);
        if (PyLong_CheckExact(bid)) {
            if (!int_ok(bid, 0, 13)) {
                return 0;
            }
        } else if (!PyUnicode_Check(bid) || PyUnicode_CompareWithASCIIString(bid, "blind_nil")) {
            return 0;
        }
    }
    return 1;
}

/* Whether ``value`` is a 26-letter draft of K and D. */
static int draft_ok(PyObject *value)
{
    if (value == NULL || !PyUnicode_CheckExact(value) || PyUnicode_GET_LENGTH(value) != 26 ||
        PyUnicode_KIND(value) != PyUnicode_1BYTE_KIND) {
        return 0;
    }
    const unsigned char *text = PyUnicode_1BYTE_DATA(value);
    for (int index = 0; index < 26; index++) {
        if (text[index] != 'K' && text[index] != 'D') {
            return 0;
        }
    }
    return 1;
}

/* The value of ``key`` in ``dict`` (borrowed), NULL when absent; ``found`` counts it. */
static PyObject *field(PyObject *dict, int key, Py_ssize_t *found)
{
    PyObject *value = PyDict_GetItemWithError(dict, KEY[key]);
    if (value != NULL) {
        *found += 1;
    }
    return value;
}

/* Whether ``value`` is a hand's claims (null, or an object of claims with no other key),
 * for ``seats`` seats. */
static int claim_ok(PyObject *value, Py_ssize_t seats)
{
    if (value == Py_None) {
        return 1;
    }
    if (!PyDict_CheckExact(value)) {
        return 0;
    }
    Py_ssize_t found = 0;
    for (int key = TRICKS; key <= BAGS; key++) {
        PyObject *claim = field(value, key, &found);
        if (claim == NULL) {
            if (PyErr_Occurred()) {
                return -1;
            }
            continue;
        }
        if (claim == Py_None) {
            continue;
        }
        if (key == TRICKS ? !ints_ok(claim, seats, 0, 13) : !ints_ok(claim, 2, -POINTS, POINTS)) {
            return 0;
        }
    }
    return found == PyDict_GET_SIZE(value);
}

/* Whether ``value`` is a list of at most ``seats`` exchanges, each an object of a seat and
 * the cards out and in (at most 13 each), with no other key. */
static int exchanges_ok(PyObject *value, Py_ssize_t seats)
{
    if (!PyList_CheckExact(value) || PyList_GET_SIZE(value) > seats) {
        return 0;
    }
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(value); index++) {
        PyObject *exchange = PyList_GET_ITEM(value, index);
        if (!PyDict_CheckExact(exchange) || PyDict_GET_SIZE(exchange) != 3) {
            return 0;
        }
        Py_ssize_t found = 0;
        PyObject *seat = field(exchange, SEAT, &found);
        if (seat == NULL || !int_ok(seat, 0, seats - 1) ||
            !cards_ok(field(exchange, OUT, &found), 0, 13) ||
            !cards_ok(field(exchange, IN, &found), 0, 13)) {
            return 0;
        }
    }
    return 1;
}

static PyObject *hand(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *value;
    int seats;
    if (!PyArg_ParseTuple(args, "Oi:hand", &value, &seats)) {
        return NULL;
    }
    if (seats != 2 && seats != 4) {
        return PyErr_Format(PyExc_ValueError, "a hand has 2 or 4 seats, not %d", seats);
    }
    if (!LETTERS_READ) {
        return PyErr_Format(PyExc_RuntimeError, "the card letters were not given");
    }
    if (!PyDict_CheckExact(value)) {
        Py_RETURN_FALSE;
    }
    Py_ssize_t found = 0;
    int ok = bids_ok(field(value, BIDS, &found), seats) &&
             cards_ok(field(value, PLAYS, &found), 0, 13 * seats);
    if (ok && seats == 2) {
        ok = cards_ok(field(value, DECK, &found), 52, 52) &&
             draft_ok(field(value, DRAFT, &found));
    } else if (ok) {
        PyObject *deal = field(value, DEAL, &found);
        ok = deal != NULL && PyList_CheckExact(deal) && PyList_GET_SIZE(deal) == 4;
        for (Py_ssize_t seat = 0; ok && seat < 4; seat++) {
            ok = cards_ok(PyList_GET_ITEM(deal, seat), 13, 13);
        }
    }
    if (ok) {
        PyObject *exchanges = field(value, EXCHANGES, &found);
        ok = exchanges == NULL || exchanges_ok(exchanges, seats);
    }
    if (ok) {
        PyObject *result = field(value, RESULT, &found);
        if (result != NULL) {
            ok = claim_ok(result, seats);
        }
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    return PyBool_FromLong(ok == 1 && found == PyDict_GET_SIZE(value));
}

/* Each of ``letters`` (``count`` ASCII letters) into ``table`` as its index; 0, or -1 with an
 * exception set. */
static int read_letters(PyObject *letters, Py_ssize_t count, signed char *table)
{
    Py_ssize_t size = 0;
    const char *text = PyUnicode_Check(letters) ? PyUnicode_AsUTF8AndSize(letters, &size) : NULL;
    if (text == NULL || size != count) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_ValueError, "expected %zd ASCII letters", count);
        }
        return -1;
    }
    memset(table, -1, 256);
    for (Py_ssize_t index = 0; index < size; index++) {
        table[(unsigned char)text[index]] = (signed char)index;
    }
    return 0;
}

static PyObject *letters(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *ranks, *suits;
    if (!PyArg_ParseTuple(args, "OO:letters", &ranks, &suits)) {
        return NULL;
    }
    if (read_letters(ranks, 13, RANK_OF) < 0 || read_letters(suits, 4, SUIT_OF) < 0) {
        return NULL;
    }
    LETTERS_READ = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"hand", hand, METH_VARARGS, "Whether the models surely accept a hand object."},
    {"letters", letters, METH_VARARGS, "The rank and suit letters of the card names."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_shape_kernel",
    "The shape check's compiled kernel (see spades_replay/record/shape.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__shape_kernel(void)
{
    for (int key = 0; key < KEYS; key++) {
        KEY[key] = PyUnicode_InternFromString(KEY_NAMES[key]);
        if (KEY[key] == NULL) {
            return NULL;
        }
    }
    return PyModule_Create(&module);
}
