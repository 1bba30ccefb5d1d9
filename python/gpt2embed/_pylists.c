/* SPDX-License-Identifier: MIT
 *
 * _pylists: the Python lists of a batch's token IDs, made in C (loaded by _binding.py with
 * ctypes.PyDLL, so the GIL is held; CPython's stable ABI, so one build serves every Python 3
 * from 3.8 on). The only part of the Python module not written in Python.
 *
 * Why it exists (measured on the corpus, bench/python_batch.py --clean 0.1, 2 December):
 * Encoding.encode_batch returns a list of ints per text, as tiktoken does. Made in Python
 * (memoryview.tolist), the lists cost ~42 ns an ID, 0.21 s for the corpus's 5.1 M IDs: as
 * long as the C tokenizer, all of it under the GIL, so two threads made a batch of documents
 * only 1.51x faster than one. Here one int object per distinct ID of a call is shared by
 * every list that holds it (ints are immutable: only `is` can tell), so an ID costs a
 * pointer store and a reference: the lists take 0.037 s, encode_batch of the 423 documents
 * 0.317 -> 0.223 s on one thread and 0.210 -> 0.111 s on two (2.00x one), and the lists hold
 * 63 MB instead of 152. Joining the texts' UTF-8 here too halves that step on 284,001 lines
 * (73 -> 35 ms).
 */
#define PY_SSIZE_T_CLEAN
#define Py_LIMITED_API 0x03080000
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The GIL is let go (and taken back) after about this many IDs, ~0.1 ms: a helper thread
 * whose C call has ended needs it to go on, and CPython asks for it only between bytecodes. */
#define LET_GO 16384

/* The two functions ctypes calls (built with -fvisibility=hidden: nothing else is seen). */
#define EXPORT __attribute__((visibility("default")))
EXPORT PyObject *g2e_pylists_append(PyObject *out, const uint32_t *ids, const size_t *counts,
                                    Py_ssize_t n);
EXPORT PyObject *g2e_pylists_join(PyObject *texts, Py_ssize_t a, Py_ssize_t z, size_t *lens);

/* The texts texts[a:z] (a list of str) as UTF-8, one after another in one bytes object;
 * lens[i] = the length of text a + i's. NULL with an exception when an item is not a str
 * (TypeError) or holds a lone surrogate (UnicodeEncodeError): the caller then does it in
 * Python, which handles both as encode does. (Each text is encoded into a bytes object of
 * its own first: PyUnicode_AsUTF8AndSize would not copy, but would keep a UTF-8 copy of
 * every non-ASCII text inside the caller's str for as long as it lives.) */
PyObject *g2e_pylists_join(PyObject *texts, Py_ssize_t a, Py_ssize_t z, size_t *lens)
{
    if (!PyList_Check(texts) || a < 0 || z < a || z > PyList_Size(texts) || (z > a && !lens)) {
        PyErr_SetString(PyExc_ValueError, "_pylists: bad texts or range");
        return NULL;
    }
    Py_ssize_t n = z - a;
    PyObject **b = n ? PyMem_Calloc((size_t)n, sizeof *b) : NULL;
    if (n && !b)
        return PyErr_NoMemory();
    PyObject *ret = NULL;
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GetItem(texts, a + i);   /* (borrowed) */
        if (!t)
            goto done;
        if (!PyUnicode_Check(t)) {
            PyErr_SetString(PyExc_TypeError, "_pylists: not a str");
            goto done;
        }
        if (!(b[i] = PyUnicode_AsUTF8String(t)))
            goto done;
        Py_ssize_t len = PyBytes_Size(b[i]);
        if (len < 0)
            goto done;
        if (len > PY_SSIZE_T_MAX - total) {
            PyErr_SetString(PyExc_OverflowError, "_pylists: the texts are too long");
            goto done;
        }
        lens[i] = (size_t)len;
        total += len;
    }
    if (!(ret = PyBytes_FromStringAndSize(NULL, total)))
        goto done;
    char *to = PyBytes_AsString(ret);
    if (!to) {
        Py_CLEAR(ret);
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (lens[i])
            memcpy(to, PyBytes_AsString(b[i]), lens[i]);
        to += lens[i];
    }
done:
    for (Py_ssize_t i = 0; i < n; i++)
        Py_XDECREF(b[i]);
    PyMem_Free(b);
    return ret;
}

/* Appends to the list `out` n lists: list i holds the counts[i] IDs that follow list
 * i - 1's in ids. Returns None (a new reference), or NULL with a Python exception set
 * (MemoryError; TypeError when out is not a list); then out may hold some of the lists. */
PyObject *g2e_pylists_append(PyObject *out, const uint32_t *ids, const size_t *counts,
                             Py_ssize_t n)
{
    if (!PyList_Check(out)) {
        PyErr_SetString(PyExc_TypeError, "_pylists: out must be a list");
        return NULL;
    }
    if (n < 0 || (n > 0 && (!counts))) {
        PyErr_SetString(PyExc_ValueError, "_pylists: bad count");
        return NULL;
    }
    uint32_t top = 0;   /* the largest ID, for the table of shared ints */
    size_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (counts[i] > (size_t)PY_SSIZE_T_MAX - total) {
            PyErr_SetString(PyExc_OverflowError, "_pylists: too many IDs");
            return NULL;
        }
        total += counts[i];
    }
    if (total && !ids) {
        PyErr_SetString(PyExc_ValueError, "_pylists: no IDs");
        return NULL;
    }
    for (size_t k = 0; k < total; k++)
        top = ids[k] > top ? ids[k] : top;
    PyObject **ints = total ? calloc((size_t)top + 1, sizeof *ints) : NULL;
    if (total && !ints)
        return PyErr_NoMemory();
    PyObject *ret = NULL;
    const uint32_t *at = ids;
    size_t since = 0;   /* IDs (and lists, at 8 IDs each) since the GIL was let go */
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len = (Py_ssize_t)counts[i];
        PyObject *l = PyList_New(len);
        if (!l)
            goto done;
        for (Py_ssize_t j = 0; j < len; j++) {
            uint32_t id = at[j];
            PyObject *v = ints[id];
            if (!v && !(v = ints[id] = PyLong_FromUnsignedLong(id))) {
                Py_DECREF(l);
                goto done;
            }
            Py_INCREF(v);
            PyList_SetItem(l, j, v);   /* (steals the reference; cannot fail here) */
        }
        at += len;
        since += (size_t)len + 8;
        if (since >= LET_GO) {   /* a thread waiting for the GIL gets it here */
            PyThreadState *ts = PyEval_SaveThread();
            PyEval_RestoreThread(ts);
            since = 0;
        }
        int rc = PyList_Append(out, l);
        Py_DECREF(l);
        if (rc < 0)
            goto done;
    }
    Py_INCREF(Py_None);
    ret = Py_None;
done:
    if (ints)
        for (size_t v = 0; v <= top; v++)
            Py_XDECREF(ints[v]);
    free(ints);
    return ret;
}
