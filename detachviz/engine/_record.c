/* The common case of engine/trace.py's `Recorder.record`, compiled: an op with one output,
 * no cut and no write, whose inputs are all tensors whose latest snapshot this recorder made
 * and whose autograd state is unchanged since (most ops of a training step or a chain).
 * It builds the same Record, with the same slots set to the same values, as the Python
 * code it stands in for, and passes every other op to that code (the Python function).
 *
 * The classes are Python classes with __slots__: `setup` reads each slot's offset from its
 * member descriptor once, and a record's slots are then written in place, as the
 * interpreter's own STORE_ATTR of a slot does. Frames are walked with the public frame API
 * (Python 3.11 and newer; on older Pythons the module has no `setup`). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#if PY_VERSION_HEX >= 0x030B0000

/* the slot offsets, by class */
static Py_ssize_t R_index, R_op, R_inputs, R_cut, R_code, R_at, R_inplace, R_grad_enabled,
    R_saved_raw, R_saver, R_outs;                           /* Record */
static Py_ssize_t F_t, F_fn, F_requires_grad, F_shape, F_owner; /* Ref, and so Record */
static Py_ssize_t T_data, T_requires_grad, T_grad_fn, T_trace;  /* Tensor */
static Py_ssize_t N_saved, N_shape, N_trace;                    /* Node */
static Py_ssize_t C_script, C_strong, C_count, C_log, C_compact_at, C_savers; /* Recorder */

static PyTypeObject *Recorder_type, *Record_type, *Ref_type, *Tensor_type, *Node_type;
static PyObject *state_dict;  /* engine/state.py's globals: grad_enabled */
static PyObject *multi;       /* node.MULTI */
static PyObject *fallback;    /* Recorder.record, the Python function: every other op */
static PyObject *s_compact_log, *s_append, *s_shape, *s_grad_enabled;
static int ready = 0;

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

/* obj's slot at `off` = value (the reference is taken; the slot's old value released) */
static inline void put(PyObject *obj, Py_ssize_t off, PyObject *value) {
    PyObject *old = SLOT(obj, off);
    SLOT(obj, off) = value;
    Py_XDECREF(old);
}

static int offset_of(PyObject *cls, const char *name, Py_ssize_t *out) {
    PyObject *d = PyObject_GetAttrString(cls, name);
    if (d == NULL) return -1;
    if (!Py_IS_TYPE(d, &PyMemberDescr_Type) ||
        ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "%R.%s is not a __slots__ slot", cls, name);
        Py_DECREF(d);
        return -1;
    }
    *out = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    return 0;
}

static PyObject *r_record(PyObject *self, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames);
static PyMethodDef record_def = {
    "record", (PyCFunction)(void (*)(void))r_record, METH_FASTCALL | METH_KEYWORDS,
    "record(op, inputs, outputs, cut=None, inplace=False): Recorder.record, the common case "
    "made here and every other op passed to the Python function."};

/* `*slot = value` for a module-level reference (the old one released) */
static void keep(PyObject **slot, PyObject *value) {
    Py_INCREF(value);
    Py_XSETREF(*slot, value);
}

static PyObject *r_setup(PyObject *self, PyObject *args) {
    PyObject *recorder, *record, *ref, *tensor, *node, *state, *new_multi, *new_fallback;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!OO", &PyType_Type, &recorder, &PyType_Type,
                          &record, &PyType_Type, &ref, &PyType_Type, &tensor, &PyType_Type,
                          &node, &PyModule_Type, &state, &new_multi, &new_fallback))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)record, (PyTypeObject *)ref)) {
        PyErr_SetString(PyExc_TypeError, "Record must subclass Ref");
        return NULL;
    }
    ready = 0; /* until every offset is read: a failed setup records nothing in C */
    struct { PyObject *cls; const char *name; Py_ssize_t *off; } slots[] = {
        {record, "index", &R_index}, {record, "op", &R_op}, {record, "inputs", &R_inputs},
        {record, "cut", &R_cut}, {record, "_code", &R_code}, {record, "_at", &R_at},
        {record, "inplace", &R_inplace}, {record, "grad_enabled", &R_grad_enabled},
        {record, "_saved_raw", &R_saved_raw}, {record, "_saver", &R_saver},
        {record, "_outs", &R_outs},
        {ref, "_t", &F_t}, {ref, "_fn", &F_fn}, {ref, "requires_grad", &F_requires_grad},
        {ref, "_shape", &F_shape}, {ref, "owner", &F_owner},
        {tensor, "_data", &T_data}, {tensor, "_requires_grad", &T_requires_grad},
        {tensor, "_grad_fn", &T_grad_fn}, {tensor, "_trace", &T_trace},
        {node, "_saved", &N_saved}, {node, "_shape", &N_shape}, {node, "_trace", &N_trace},
        {recorder, "script", &C_script}, {recorder, "strong", &C_strong},
        {recorder, "_count", &C_count}, {recorder, "_log", &C_log},
        {recorder, "_compact_at", &C_compact_at}, {recorder, "_savers", &C_savers},
    };
    for (size_t k = 0; k < sizeof slots / sizeof slots[0]; k++)
        if (offset_of(slots[k].cls, slots[k].name, slots[k].off) < 0) return NULL;
    const char *names[] = {"_compact_log", "append", "shape", "grad_enabled"};
    PyObject **interned[] = {&s_compact_log, &s_append, &s_shape, &s_grad_enabled};
    for (int k = 0; k < 4; k++)
        if (*interned[k] == NULL && (*interned[k] = PyUnicode_InternFromString(names[k])) == NULL)
            return NULL;
    keep((PyObject **)&Recorder_type, recorder);
    keep((PyObject **)&Record_type, record);
    keep((PyObject **)&Ref_type, ref);
    keep((PyObject **)&Tensor_type, tensor);
    keep((PyObject **)&Node_type, node);
    keep(&state_dict, PyModule_GetDict(state));
    keep(&multi, new_multi);
    keep(&fallback, new_fallback);
    ready = 1;
    PyObject *fn = PyCFunction_NewEx(&record_def, NULL, NULL);
    if (fn == NULL) return NULL;
    PyObject *method = PyInstanceMethod_New(fn); /* binds the recorder, as a def does */
    Py_DECREF(fn);
    return method;
}

/* A weak reference without a callback to `obj`, out of the cyclic collector's lists: it
 * holds no reference the collector could follow (only a callback is one), and each record
 * makes three of them, which the collector would otherwise walk at every young pass. */
static inline PyObject *weak(PyObject *obj) {
    PyObject *w = PyWeakref_NewRef(obj, NULL);
    if (w != NULL && PyObject_GC_IsTracked(w)) PyObject_GC_UnTrack(w);
    return w;
}

/* the object a weak reference points to (borrowed; Py_None once it died) */
static inline PyObject *deref(PyObject *w) {
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *o;
    if (PyWeakref_GetRef(w, &o) <= 0) return Py_None;
    Py_DECREF(o); /* alive: the caller holds a strong reference to compare against */
    return o;
#else
    return PyWeakref_GET_OBJECT(w);
#endif
}

/* The input's latest snapshot when `record` would reuse it unchanged, else NULL (no error):
 * a tensor whose `_trace` this recorder made, with the same grad_fn (and, without one, the
 * same requires_grad) as then. */
static PyObject *unchanged(PyObject *x, PyObject *recorder) {
    if (!PyObject_TypeCheck(x, Tensor_type)) return NULL;
    PyObject *old = SLOT(x, T_trace);
    if (old == NULL || old == Py_None || !PyObject_TypeCheck(old, Ref_type)) return NULL;
    if (SLOT(old, F_owner) != recorder) return NULL;
    PyObject *ofn = SLOT(old, F_fn), *fn = SLOT(x, T_grad_fn);
    if (ofn == NULL || fn == NULL) return NULL;
    if (fn == Py_None) {
        if (ofn != Py_None) return NULL;
        PyObject *a = SLOT(old, F_requires_grad), *b = SLOT(x, T_requires_grad);
        if (a == NULL || b == NULL || !PyBool_Check(a) || !PyBool_Check(b) || a != b)
            return NULL;
        return old;
    }
    if (ofn == Py_None || !PyWeakref_CheckRefExact(ofn) || deref(ofn) != fn) return NULL;
    return old;
}

/* the script frame's code and instruction offset, into the record (left None if none) */
static int place(PyObject *rec, PyObject *script) {
    /* the innermost Python frame is the engine's op that records itself: start above it */
    PyFrameObject *frame = PyEval_GetFrame(); /* borrowed */
    frame = frame == NULL ? NULL : PyFrame_GetBack(frame);
    while (frame != NULL) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        PyObject *name = code->co_filename;
        int same = name == script;
        if (!same && PyUnicode_Check(name)) {
            same = PyUnicode_Compare(name, script) == 0;
            if (PyErr_Occurred()) {
                Py_DECREF(code);
                Py_DECREF(frame);
                return -1;
            }
        }
        if (same) {
            PyObject *at = PyLong_FromLong(PyFrame_GetLasti(frame));
            Py_DECREF(frame);
            if (at == NULL) {
                Py_DECREF(code);
                return -1;
            }
            put(rec, R_code, (PyObject *)code);
            put(rec, R_at, at);
            return 0;
        }
        Py_DECREF(code);
        PyFrameObject *back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    return 0;
}

static PyObject *r_record(PyObject *self, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    /* (recorder, op, inputs, outputs[, cut[, inplace]]), positional: else Python records it */
    if (!ready || kwnames != NULL || nargs < 4 || nargs > 6 ||
        (nargs > 4 && args[4] != Py_None) || (nargs > 5 && args[5] != Py_False))
        return PyObject_Vectorcall(fallback, args, nargsf, kwnames);
    PyObject *recorder = args[0], *op = args[1], *inputs = args[2], *outputs = args[3];
    if (!PyTuple_CheckExact(inputs) || !PyTuple_CheckExact(outputs) ||
        PyTuple_GET_SIZE(outputs) != 1)
        goto python;
    PyObject *out = PyTuple_GET_ITEM(outputs, 0);
    if (!PyObject_TypeCheck(out, Tensor_type)) goto python;
    /* a recorder started inside another (`strong`) keeps its own map: Python's */
    if (!PyObject_TypeCheck(recorder, Recorder_type) || SLOT(recorder, C_strong) != Py_False)
        goto python;
    /* NOTE: the recorder's slots (set by its __init__) are read where they are used: an
     * allocation can run the cyclic collector, and with it any finalizer */
    PyObject *ge = PyDict_GetItemWithError(state_dict, s_grad_enabled); /* borrowed */
    if (ge == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "state.grad_enabled unset");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *old = unchanged(PyTuple_GET_ITEM(inputs, k), recorder);
        if (old == NULL) goto python;
        /* with grad mode off, an input that requires grad is cut (`no_grad`): Python's */
        if (ge != Py_True && SLOT(old, F_requires_grad) != Py_False) goto python;
    }
    PyObject *fn = SLOT(out, T_grad_fn), *data = SLOT(out, T_data);
    if (fn == NULL || data == NULL) goto python;
    if (fn == Py_None ? SLOT(out, T_requires_grad) == NULL
                      : !PyObject_TypeCheck(fn, Node_type) || SLOT(fn, N_saved) == NULL ||
                            SLOT(fn, N_shape) == NULL)
        goto python;

    /* from here on the op is recorded: every failure is an error (never a None) */
    PyObject *ins = PyTuple_New(n);
    if (ins == NULL) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *old = SLOT(PyTuple_GET_ITEM(inputs, k), T_trace);
        Py_INCREF(old);
        PyTuple_SET_ITEM(ins, k, old);
    }
    PyObject *rec = Record_type->tp_alloc(Record_type, 0);
    if (rec == NULL) {
        Py_DECREF(ins);
        return NULL;
    }
    PyObject *count = SLOT(recorder, C_count);
    if (count == NULL || !PyLong_CheckExact(count)) {
        PyErr_SetString(PyExc_TypeError, "Recorder._count is not an int");
        goto fail;
    }
    Py_ssize_t index = PyLong_AsSsize_t(count);
    if (index == -1 && PyErr_Occurred()) goto fail;
    PyObject *next = PyLong_FromSsize_t(index + 1);
    if (next == NULL) goto fail;
    put(rec, R_index, Py_NewRef(count));
    put(recorder, C_count, next);
    put(rec, R_op, Py_NewRef(op));
    put(rec, R_inputs, ins);
    ins = NULL;
    put(rec, R_cut, Py_NewRef(Py_None));
    put(rec, R_inplace, Py_NewRef(Py_False));
    put(rec, R_grad_enabled, Py_NewRef(ge));
    put(rec, R_saved_raw, Py_NewRef(Py_None));
    put(rec, R_code, Py_NewRef(Py_None));
    put(rec, R_at, Py_NewRef(Py_None));
    PyObject *script = SLOT(recorder, C_script);
    if (script != NULL && script != Py_None) {
        Py_INCREF(script);
        int placed = place(rec, script);
        Py_DECREF(script);
        if (placed < 0) goto fail;
    }
    /* the record is its output's snapshot */
    put(rec, R_outs, Py_NewRef(Py_None));
    put(rec, F_owner, Py_NewRef(recorder));
    PyObject *wt = weak(out);
    if (wt == NULL) goto fail;
    put(rec, F_t, wt);
    put(out, T_trace, Py_NewRef(rec));
    if (fn == Py_None) {
        put(rec, F_fn, Py_NewRef(Py_None));
        put(rec, F_requires_grad, Py_NewRef(SLOT(out, T_requires_grad)));
        PyObject *shape = PyObject_GetAttr(data, s_shape);
        if (shape == NULL) goto fail;
        put(rec, F_shape, shape);
    } else {
        put(rec, F_requires_grad, Py_NewRef(Py_True));
        PyObject *wfn = weak(fn);
        if (wfn == NULL) goto fail;
        put(rec, F_fn, wfn);
        put(fn, N_trace, Py_NewRef(rec));
        PyObject *shape = SLOT(fn, N_shape); /* the node's own tuple: no new one per op */
        if (shape == Py_None || shape == multi)
            shape = PyObject_GetAttr(data, s_shape);
        else
            Py_INCREF(shape);
        if (shape == NULL) goto fail;
        put(rec, F_shape, shape);
        PyObject *saved = SLOT(fn, N_saved);
        int any = PyObject_IsTrue(saved);
        if (any < 0) goto fail;
        if (any) {
            put(rec, R_saved_raw, Py_NewRef(saved));
            put(rec, R_saver, Py_NewRef(wfn));
            PyObject *entry = PyTuple_Pack(2, SLOT(rec, R_index), wfn);
            if (entry == NULL) goto fail;
            PyObject *savers = SLOT(recorder, C_savers), *r = NULL;
            if (savers == NULL) {
                PyErr_SetString(PyExc_AttributeError, "Recorder._savers is unset");
            } else {
                Py_INCREF(savers);
                r = PyObject_CallMethodOneArg(savers, s_append, entry);
                Py_DECREF(savers);
            }
            Py_DECREF(entry);
            if (r == NULL) goto fail;
            Py_DECREF(r);
        }
    }
    /* the log of weak references, compacted (in Python) when it reaches its mark */
    PyObject *wrec = weak(rec);
    if (wrec == NULL) goto fail;
    PyObject *log = SLOT(recorder, C_log), *mark = SLOT(recorder, C_compact_at);
    if (log == NULL || !PyList_CheckExact(log) || mark == NULL || !PyLong_CheckExact(mark)) {
        Py_DECREF(wrec);
        PyErr_SetString(PyExc_TypeError, "Recorder._log is not a list, or _compact_at no int");
        goto fail;
    }
    int appended = PyList_Append(log, wrec); /* no allocation runs Python before the next */
    Py_DECREF(wrec);
    if (appended < 0) goto fail;
    Py_ssize_t size = PyList_GET_SIZE(log);
    Py_ssize_t at = PyLong_AsSsize_t(mark);
    if (at == -1 && PyErr_Occurred()) goto fail;
    if (size >= at) {
        PyObject *r = PyObject_CallMethodNoArgs(recorder, s_compact_log);
        if (r == NULL) goto fail;
        Py_DECREF(r);
    }
    return rec;
fail:
    Py_XDECREF(ins);
    Py_DECREF(rec);
    return NULL;
python:
    return PyObject_Vectorcall(fallback, args, nargsf, kwnames);
}

static PyMethodDef methods[] = {
    {"setup", r_setup, METH_VARARGS,
     "setup(Recorder, Record, Ref, Tensor, Node, state, MULTI, record): the classes whose "
     "slots the compiled record reads and writes, and the Python `Recorder.record` it hands "
     "every other op; returns the compiled record, a method for the Recorder class."},
    {NULL, NULL, 0, NULL},
};

#else /* before Python 3.11: no public frame API for the instruction offset */

static PyMethodDef methods[] = {{NULL, NULL, 0, NULL}};

#endif

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_record",
    "The common case of Recorder.record, compiled (see engine/trace.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__record(void) { return PyModule_Create(&module); }
