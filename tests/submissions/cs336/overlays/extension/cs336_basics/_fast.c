/* A compiled extension module a student builds in place (cs336_catalogue.py compiles it for the
   interpreter that grades it): `total(list of ints)` adds them up in C. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *total(PyObject *self, PyObject *items) {
    PyObject *seq = PySequence_Fast(items, "total() takes a sequence of ints");
    if (seq == NULL) return NULL;
    long long sum = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        sum += v;
    }
    Py_DECREF(seq);
    return PyLong_FromLongLong(sum);
}

static PyMethodDef methods[] = {
    {"total", total, METH_O, "The sum of a sequence of ints."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fast", NULL, -1, methods};

PyMODINIT_FUNC PyInit__fast(void) { return PyModule_Create(&module); }
