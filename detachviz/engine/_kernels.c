/* Compiled forms of the float32 kernels engine/transcendental.py, engine/libm.py and
 * engine/fma.py emulate in numpy: Sleef's expf8_u10 and logf8_u10 as torch's AVX2 build runs
 * them (every vmla one fused multiply-add), glibc's expf, torch's sigmoid split and an
 * elementwise fused multiply-add. Each function here computes, element by element, what the
 * numpy reference next to it computes for the whole array (the tests compare the two bit for
 * bit); the numpy forms stay the fallback where this module was not built.
 *
 * Built with -ffp-contract=off: every float operation below is rounded once, as written, and
 * the only fused steps are the explicit fmaf calls (glibc's fmaf is the exact fused
 * multiply-add, in hardware or not).
 *
 * Arguments are buffers of float32 at unit stride (engine/kernels.py passes C-contiguous
 * arrays). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* A constant as numpy's np.float32(c) makes it: the decimal to double, then to float. */
#define F(c) ((float)(c))

/* The loops are compiled twice on x86-64 with GCC or clang: for CPUs with AVX2 and FMA (fmaf
 * and rintf are then instructions, and the loops use vector registers: each element's
 * operations, and so its bits, are the same) and for any CPU; the module picks one when it
 * loads. */
#if defined(__GNUC__) && defined(__x86_64__)
#define FAST_LOOPS 1
#endif

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Both kernels are written without branches (out-of-range lanes compute on a harmless value
 * and are replaced at the end), as Sleef's vector code is, so that loops over them vectorise;
 * ALWAYS_INLINE so that each compiled clone of a loop gets its own copy. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Sleef's xexpf: q = rint(d / ln2), s = d - q*ln2 in two fused steps, a degree-6 polynomial,
 * scaling by 2**q in two halves; below -104 it is 0, above 100 inf, nan stays nan. */
ALWAYS_INLINE float sleef_expf(float d) {
    int out = !((d >= -F(104.0)) & (d <= F(100.0))); /* nan included */
    float x = out ? F(0.0) : d;
    float qf = rintf(x * F(1.442695040888963407359924681001892137426645954152985934135449406931));
    int32_t q = (int32_t)qf;
    float s = fmaf(qf, -F(0.693145751953125), x);
    s = fmaf(qf, -F(1.428606765330187045e-06), s);
    float u = F(0.000198527617612853646278381);
    u = fmaf(u, s, F(0.00139304355252534151077271));
    u = fmaf(u, s, F(0.00833336077630519866943359));
    u = fmaf(u, s, F(0.0416664853692054748535156));
    u = fmaf(u, s, F(0.166666671633720397949219));
    u = fmaf(u, s, F(0.5));
    u = F(1.0) + fmaf(s * s, u, s);
    int32_t half = q >> 1;
    u = u * from_bits((uint32_t)(half + 0x7f) << 23);
    u = u * from_bits((uint32_t)(q - half + 0x7f) << 23);
    u = d < -F(104.0) ? F(0.0) : u;
    u = d > F(100.0) ? INFINITY : u;
    return d != d ? d : u;
}

/* Sleef's xlogf_u1 (the AVX2 build): d = m * 2**e with m in [0.75, 1.5), x = (m-1)/(m+1) as
 * a double-float, log = e*ln2 + 2x + x**3 * t(x**2), summed as double-floats; subnormals
 * are scaled by 2**64 first. 0 gives -inf, inf inf, negatives and nan nan. */
ALWAYS_INLINE float sleef_logf(float d) {
    int finite_positive = (d > F(0.0)) & (d <= F(3.40282346638528859812e+38));
    float x = finite_positive ? d : F(1.0);
    int tiny = x < F(1.17549435082228750797e-38); /* below FLT_MIN */
    float dn = tiny ? x * F(18446744073709551616.0) : x;
    int32_t e = (int32_t)((to_bits(dn * (float)(1.0 / 0.75)) >> 23) & 0xff) - 0x7f;
    float m = from_bits(to_bits(dn) - ((uint32_t)e << 23));
    float ef = (float)(tiny ? e - 64 : e);
    const float ln2_hi = F(0.69314718246459960938), ln2_lo = -F(1.904654323148236017e-09);
    float sx = ln2_hi * ef;
    float sy = fmaf(ln2_lo, ef, fmaf(ln2_hi, ef, -sx));
    /* dfadd2(-1, m) and dfadd2(1, m) */
    float nx = -F(1.0) + m, nv = nx - -F(1.0);
    float ny = (-F(1.0) - (nx - nv)) + (m - nv);
    float dx = F(1.0) + m, dv = dx - F(1.0);
    float dy = (F(1.0) - (dx - dv)) + (m - dv);
    float t = F(1.0) / dx;
    float qx = nx * t;
    float u = fmaf(t, nx, -qx);
    float v = fmaf(-dy, t, fmaf(-dx, t, F(1.0)));
    float qy = fmaf(qx, v, fmaf(ny, t, u));
    float x2 = qx * qx;
    float p = fmaf(fmaf(F(0.3027294874), x2, F(0.3996108174)), x2, F(0.6666694880));
    float ax = qx * F(2.0), ay = qy * F(2.0);
    float s = sx + ax;
    sy = (((sx - s) + ax) + sy) + ay;
    float w = (x2 * qx) * p;
    float hi = s + w;
    float r = hi + (((s - hi) + w) + sy);
    r = d == INFINITY ? INFINITY : r;
    r = ((d < F(0.0)) | (d != d)) ? NAN : r;
    return d == F(0.0) ? -INFINITY : r;
}

typedef struct {
    Py_buffer view;
    Py_ssize_t n;
} floats;

/* Borrow `obj` as n float32 values; writable if asked. 0 and an exception set on failure. */
static int get_floats(PyObject *obj, floats *out, int writable) {
    int flags = PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &out->view, flags) < 0) return 0;
    const char *fmt = out->view.format;
    if (out->view.itemsize != 4 || fmt == NULL || strcmp(fmt, "f") != 0) {
        PyBuffer_Release(&out->view);
        PyErr_SetString(PyExc_TypeError, "float32 buffers only");
        return 0;
    }
    out->n = out->view.len / 4;
    return 1;
}

#define LOOP(name) name##_any
#define LOOP_ATTR
#include "_kernels_loops.h"
#undef LOOP
#undef LOOP_ATTR
#ifdef FAST_LOOPS
#define LOOP(name) name##_fast
#define LOOP_ATTR __attribute__((target("avx2,fma")))
#include "_kernels_loops.h"
#endif

typedef void (*unary_loop)(const float *, float *, Py_ssize_t);
static unary_loop loop_sleef_expf, loop_sleef_logf; /* set by choose() */
static void (*loop_sigmoid)(const float *, float *, Py_ssize_t, Py_ssize_t);
static void (*loop_fma)(const float *, const float *, const float *, float *, Py_ssize_t);

static void loop_expf(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = expf(x[i]);
}

/* The common shape of the unary kernels: loop(src, dst), the same length. */
static PyObject *unary(PyObject *args, unary_loop loop) {
    PyObject *a, *b;
    floats src, dst;
    if (!PyArg_ParseTuple(args, "OO", &a, &b)) return NULL;
    if (!get_floats(a, &src, 0)) return NULL;
    if (!get_floats(b, &dst, 1)) {
        PyBuffer_Release(&src.view);
        return NULL;
    }
    if (src.n != dst.n) {
        PyErr_SetString(PyExc_ValueError, "source and destination differ in length");
    } else {
        Py_BEGIN_ALLOW_THREADS
        loop(src.view.buf, dst.view.buf, src.n);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&src.view);
    PyBuffer_Release(&dst.view);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyObject *k_sleef_expf(PyObject *self, PyObject *args) {
    return unary(args, loop_sleef_expf);
}
static PyObject *k_sleef_logf(PyObject *self, PyObject *args) {
    return unary(args, loop_sleef_logf);
}
static PyObject *k_expf(PyObject *self, PyObject *args) { return unary(args, loop_expf); }


/* torch's float32 sigmoid over rows of `run` contiguous elements: in each row the first
 * run - run % 16 as its vector loop, 1 / (1 + sleef_expf(0 - x)), the rest as its scalar loop,
 * 1 / (1 + expf(-x)). */
static PyObject *k_sigmoid(PyObject *self, PyObject *args) {
    PyObject *a, *b;
    Py_ssize_t run;
    floats src, dst;
    if (!PyArg_ParseTuple(args, "OOn", &a, &b, &run)) return NULL;
    if (!get_floats(a, &src, 0)) return NULL;
    if (!get_floats(b, &dst, 1)) {
        PyBuffer_Release(&src.view);
        return NULL;
    }
    if (src.n != dst.n || run < 1 || src.n % run != 0) {
        PyErr_SetString(PyExc_ValueError, "lengths differ, or are not whole rows of `run`");
    } else {
        Py_BEGIN_ALLOW_THREADS
        loop_sigmoid(src.view.buf, dst.view.buf, src.n, run);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&src.view);
    PyBuffer_Release(&dst.view);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}


/* dst = a * b + c rounded once, elementwise (all four the same length). */
static PyObject *k_fma(PyObject *self, PyObject *args) {
    PyObject *objs[4];
    floats f[4];
    int got = 0;
    if (!PyArg_ParseTuple(args, "OOOO", &objs[0], &objs[1], &objs[2], &objs[3])) return NULL;
    while (got < 4 && get_floats(objs[got], &f[got], got == 3)) got++;
    if (got == 4) {
        Py_ssize_t n = f[3].n;
        if (f[0].n != n || f[1].n != n || f[2].n != n) {
            PyErr_SetString(PyExc_ValueError, "operands differ in length");
        } else {
            Py_BEGIN_ALLOW_THREADS
            loop_fma(f[0].view.buf, f[1].view.buf, f[2].view.buf, f[3].view.buf, n);
            Py_END_ALLOW_THREADS
        }
    }
    for (int i = 0; i < got; i++) PyBuffer_Release(&f[i].view);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* The AVX2 and FMA loops if `fast` and the CPU has both, else those for any CPU; 1 if fast. */
static int choose(int fast) {
#ifdef FAST_LOOPS
    __builtin_cpu_init();
    if (fast && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        loop_sleef_expf = loop_sleef_expf_fast;
        loop_sleef_logf = loop_sleef_logf_fast;
        loop_sigmoid = loop_sigmoid_fast;
        loop_fma = loop_fma_fast;
        return 1;
    }
#endif
    loop_sleef_expf = loop_sleef_expf_any;
    loop_sleef_logf = loop_sleef_logf_any;
    loop_sigmoid = loop_sigmoid_any;
    loop_fma = loop_fma_any;
    return 0;
}

static PyObject *k_choose(PyObject *self, PyObject *arg) {
    int fast = PyObject_IsTrue(arg);
    if (fast < 0) return NULL;
    return PyBool_FromLong(choose(fast));
}

static PyMethodDef methods[] = {
    {"choose", k_choose, METH_O,
     "choose(fast): the AVX2+FMA loops (where the CPU has them) or those for any CPU; "
     "returns whether the fast ones run."},
    {"sleef_expf", k_sleef_expf, METH_VARARGS, "sleef_expf(src, dst): Sleef's expf8_u10."},
    {"sleef_logf", k_sleef_logf, METH_VARARGS, "sleef_logf(src, dst): Sleef's logf8_u10."},
    {"expf", k_expf, METH_VARARGS, "expf(src, dst): the C library's expf."},
    {"sigmoid", k_sigmoid, METH_VARARGS, "sigmoid(src, dst, run): torch's float32 sigmoid."},
    {"fma", k_fma, METH_VARARGS, "fma(a, b, c, dst): a * b + c rounded once."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels", "Compiled float32 kernels (see engine/kernels.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__kernels(void) {
    choose(1);
    return PyModule_Create(&module);
}
