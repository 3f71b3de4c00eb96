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

static void release(floats *f, int count) {
    for (int i = 0; i < count; i++) PyBuffer_Release(&f[i].view);
}

/* Borrow the first `count` arguments as float32 buffers of one length, the last one written:
 * every kernel's operands. 0 and an exception set (nothing borrowed) on failure. */
static int borrow(PyObject *args, floats *f, int count) {
    if (PyTuple_GET_SIZE(args) < count) {
        PyErr_Format(PyExc_TypeError, "takes %d buffers", count);
        return 0;
    }
    for (int i = 0; i < count; i++) {
        if (!get_floats(PyTuple_GET_ITEM(args, i), &f[i], i == count - 1)) {
            release(f, i);
            return 0;
        }
        if (f[i].n != f[0].n) {
            release(f, i + 1);
            PyErr_SetString(PyExc_ValueError, "operands differ in length");
            return 0;
        }
    }
    return 1;
}

/* lane_sum(rows, dst, n): each row of n float32 summed as torch's vec::reduce_all adds it
 * (engine/softmax.py's lane_sum): 8 lane accumulators fed in order, a last partial vector
 * into its first lanes only, then folded ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)); rows
 * shorter than 8 add serially from their first element. */
ALWAYS_INLINE float lane_sum_row(const float *x, Py_ssize_t n) {
    if (n < 8) {
        float acc = x[0];
        for (Py_ssize_t i = 1; i < n; i++) acc += x[i];
        return acc;
    }
    float l[8];
    for (int k = 0; k < 8; k++) l[k] = x[k];
    Py_ssize_t full = n - n % 8, d;
    for (d = 8; d < full; d += 8)
        for (int k = 0; k < 8; k++) l[k] += x[d + k];
    for (Py_ssize_t k = 0; full + k < n; k++) l[k] += x[full + k];
    float h0 = l[0] + l[4], h1 = l[1] + l[5], h2 = l[2] + l[6], h3 = l[3] + l[7];
    return (h0 + h2) + (h1 + h3);
}

/* Borrow two float32 buffers of any lengths, the second written. */
static int borrow_two(PyObject *args, floats *f) {
    if (PyTuple_GET_SIZE(args) != 2) {
        PyErr_SetString(PyExc_TypeError, "takes 2 buffers");
        return 0;
    }
    if (!get_floats(PyTuple_GET_ITEM(args, 0), &f[0], 0)) return 0;
    if (!get_floats(PyTuple_GET_ITEM(args, 1), &f[1], 1)) {
        release(f, 1);
        return 0;
    }
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
typedef void (*binary_loop)(const float *, const float *, float *, Py_ssize_t);

/* One copy of the loops, chosen when the module loads (choose()). */
static struct {
    unary_loop sleef_expf, sleef_logf;
    binary_loop tanh_back, sigmoid_back, relu_back;
    void (*sigmoid)(const float *, float *, Py_ssize_t, Py_ssize_t);
    void (*fma)(const float *, const float *, const float *, float *, Py_ssize_t);
    void (*softmax_rows)(const float *, float *, float *, Py_ssize_t, Py_ssize_t, int);
    void (*softmax_back_rows)(const float *, const float *, float *, float *, Py_ssize_t,
                              Py_ssize_t, int);
} loops;

#define SET_LOOPS(SUFFIX)                                                                  \
    do {                                                                                   \
        loops.sleef_expf = loop_sleef_expf##SUFFIX;                                        \
        loops.sleef_logf = loop_sleef_logf##SUFFIX;                                        \
        loops.tanh_back = loop_tanh_back##SUFFIX;                                          \
        loops.sigmoid_back = loop_sigmoid_back##SUFFIX;                                    \
        loops.relu_back = loop_relu_back##SUFFIX;                                          \
        loops.sigmoid = loop_sigmoid##SUFFIX;                                              \
        loops.fma = loop_fma##SUFFIX;                                                      \
        loops.softmax_rows = loop_softmax_rows##SUFFIX;                                    \
        loops.softmax_back_rows = loop_softmax_back_rows##SUFFIX;                          \
    } while (0)

/* The AVX2 and FMA loops if `fast` and the CPU has both, else those for any CPU; 1 if fast. */
static int choose(int fast) {
#ifdef FAST_LOOPS
    __builtin_cpu_init();
    if (fast && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        SET_LOOPS(_fast);
        return 1;
    }
#endif
    SET_LOOPS(_any);
    return 0;
}

static void loop_expf(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = expf(x[i]);
}

static PyObject *unary(PyObject *args, unary_loop loop) {
    floats f[2];
    if (!borrow(args, f, 2)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    loop(f[0].view.buf, f[1].view.buf, f[0].n);
    Py_END_ALLOW_THREADS
    release(f, 2);
    Py_RETURN_NONE;
}

static PyObject *binary(PyObject *args, binary_loop loop) {
    floats f[3];
    if (!borrow(args, f, 3)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    loop(f[0].view.buf, f[1].view.buf, f[2].view.buf, f[0].n);
    Py_END_ALLOW_THREADS
    release(f, 3);
    Py_RETURN_NONE;
}

static PyObject *k_sleef_expf(PyObject *self, PyObject *args) {
    return unary(args, loops.sleef_expf);
}
static PyObject *k_sleef_logf(PyObject *self, PyObject *args) {
    return unary(args, loops.sleef_logf);
}
static PyObject *k_expf(PyObject *self, PyObject *args) { return unary(args, loop_expf); }
static PyObject *k_tanh_back(PyObject *self, PyObject *args) {
    return binary(args, loops.tanh_back);
}
static PyObject *k_sigmoid_back(PyObject *self, PyObject *args) {
    return binary(args, loops.sigmoid_back);
}
static PyObject *k_relu_back(PyObject *self, PyObject *args) {
    return binary(args, loops.relu_back);
}

/* torch's float32 sigmoid over rows of `run` contiguous elements: in each row the first
 * run - run % 16 as its vector loop, 1 / (1 + sleef_expf(0 - x)), the rest as its scalar loop,
 * 1 / (1 + expf(-x)). */
static PyObject *k_sigmoid(PyObject *self, PyObject *args) {
    floats f[2];
    Py_ssize_t run = PyTuple_GET_SIZE(args) == 3 ? PyLong_AsSsize_t(PyTuple_GET_ITEM(args, 2)) : -1;
    if (run == -1 && PyErr_Occurred()) return NULL;
    if (!borrow(args, f, 2)) return NULL;
    if (run < 1 || f[0].n % run != 0) {
        release(f, 2);
        PyErr_SetString(PyExc_ValueError, "sigmoid(src, dst, run): not whole rows of `run`");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    loops.sigmoid(f[0].view.buf, f[1].view.buf, f[0].n, run);
    Py_END_ALLOW_THREADS
    release(f, 2);
    Py_RETURN_NONE;
}

/* dst = a * b + c rounded once, elementwise (all four the same length). */
static PyObject *k_fma(PyObject *self, PyObject *args) {
    floats f[4];
    if (!borrow(args, f, 4)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    loops.fma(f[0].view.buf, f[1].view.buf, f[2].view.buf, f[3].view.buf, f[0].n);
    Py_END_ALLOW_THREADS
    release(f, 4);
    Py_RETURN_NONE;
}

/* call_vml(address, src, dst, mode): the VML function v?<Op>(n, src, dst, mode) at `address`
 * (engine/mkl.py's handle of it) on float32 or float64 buffers of one length and format: what
 * the ctypes call does, without its per-argument conversions, which cost more than a small
 * VML call itself. */
typedef void (*vml_fn)(int, const void *, void *, long long);

static PyObject *k_call_vml(PyObject *self, PyObject *args) {
    unsigned long long address;
    long long mode;
    PyObject *a, *b;
    Py_buffer src, dst;
    if (!PyArg_ParseTuple(args, "KOOL", &address, &a, &b, &mode)) return NULL;
    if (PyObject_GetBuffer(a, &src, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(b, &dst, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&src);
        return NULL;
    }
    const char *fs = src.format ? src.format : "", *fd = dst.format ? dst.format : "";
    if (address == 0 || strcmp(fs, fd) != 0 || (strcmp(fs, "f") != 0 && strcmp(fs, "d") != 0)) {
        PyErr_SetString(PyExc_TypeError, "call_vml: a function and float32 or float64 buffers");
    } else if (src.len != dst.len || src.len / src.itemsize > 0x7fffffff) {
        PyErr_SetString(PyExc_ValueError, "call_vml: lengths differ or exceed MKL_INT");
    } else {
        vml_fn fn = (vml_fn)(uintptr_t)address;
        int n = (int)(src.len / src.itemsize);
        Py_BEGIN_ALLOW_THREADS
        fn(n, src.buf, dst.buf, mode);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&src);
    PyBuffer_Release(&dst);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* The cblas ?gemm and ?gemv calls engine/blas.py makes (column-major, as torch's CPU kernels
 * call them), by the function's address: what the ctypes call does, without converting twelve
 * arguments and three addresses, which cost more than a 20x20 product. The arrays are passed
 * as they are (their first element's address is taken here, strides are the caller's: the
 * leading dimensions and increments say how MKL reads them); their dtype picks s or d. */
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                         const float *, int, float, float *, int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double *, int,
                         const double *, int, double, double *, int);
typedef void (*sgemv_fn)(int, int, int, int, float, const float *, int, const float *, int,
                         float, float *, int);
typedef void (*dgemv_fn)(int, int, int, int, double, const double *, int, const double *, int,
                         double, double *, int);
#define COL_MAJOR 102

/* the buffers' first elements, all of one dtype (float32: 0, float64: 1), the last writable;
 * -1 with an exception set otherwise (or when there is no function at `address`) */
static int blas_buffers(unsigned long long address, const char *name, PyObject **arrays,
                        Py_buffer *views, int count) {
    if (address == 0) {
        PyErr_Format(PyExc_ValueError, "%s: no function", name);
        return -1;
    }
    int kind = -1, got = 0;
    for (; got < count; got++) {
        int flags = PyBUF_STRIDES | PyBUF_FORMAT | (got == count - 1 ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(arrays[got], &views[got], flags) < 0) goto fail;
        const char *f = views[got].format ? views[got].format : "";
        int k = strcmp(f, "f") == 0 ? 0 : strcmp(f, "d") == 0 ? 1 : -1;
        if (k < 0 || (got > 0 && k != kind)) {
            PyBuffer_Release(&views[got]);
            PyErr_Format(PyExc_TypeError, "%s: float32 or float64 arrays of one dtype", name);
            goto fail;
        }
        kind = k;
    }
    return kind;
fail:
    while (got-- > 0) PyBuffer_Release(&views[got]);
    return -1;
}

/* The two calls, in the dtype `kind` says, without the GIL. */
static void run_gemm(int kind, unsigned long long address, int ta, int tb, int m, int n, int k,
                     double alpha, const void *a, int lda, const void *b, int ldb, double beta,
                     void *c, int ldc) {
    Py_BEGIN_ALLOW_THREADS
    if (kind == 0)
        ((sgemm_fn)(uintptr_t)address)(COL_MAJOR, ta, tb, m, n, k, (float)alpha, a, lda, b, ldb,
                                       (float)beta, c, ldc);
    else
        ((dgemm_fn)(uintptr_t)address)(COL_MAJOR, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta,
                                       c, ldc);
    Py_END_ALLOW_THREADS
}

/* y = op(a) @ x: alpha 1, beta 0, y's increment 1 */
static void run_gemv(int kind, unsigned long long address, int trans, int m, int n,
                     const void *a, int lda, const void *x, int incx, void *y) {
    Py_BEGIN_ALLOW_THREADS
    if (kind == 0)
        ((sgemv_fn)(uintptr_t)address)(COL_MAJOR, trans, m, n, 1.0f, a, lda, x, incx, 0.0f, y, 1);
    else
        ((dgemv_fn)(uintptr_t)address)(COL_MAJOR, trans, m, n, 1.0, a, lda, x, incx, 0.0, y, 1);
    Py_END_ALLOW_THREADS
}

/* call_gemm(address, transa, transb, m, n, k, alpha, (a, lda), (b, ldb), beta, (c, ldc)) */
static PyObject *k_call_gemm(PyObject *self, PyObject *args) {
    unsigned long long address;
    int ta, tb, m, n, k, lda, ldb, ldc;
    double alpha, beta;
    PyObject *arrays[3];
    Py_buffer v[3];
    if (!PyArg_ParseTuple(args, "Kiiiiid(Oi)(Oi)d(Oi)", &address, &ta, &tb, &m, &n, &k, &alpha,
                          &arrays[0], &lda, &arrays[1], &ldb, &beta, &arrays[2], &ldc))
        return NULL;
    int kind = blas_buffers(address, "call_gemm", arrays, v, 3);
    if (kind < 0) return NULL;
    run_gemm(kind, address, ta, tb, m, n, k, alpha, v[0].buf, lda, v[1].buf, ldb, beta, v[2].buf,
             ldc);
    for (int i = 0; i < 3; i++) PyBuffer_Release(&v[i]);
    Py_RETURN_NONE;
}

/* call_gemv(address, trans, m, n, (a, lda), (x, incx), y): y = op(a) @ x (alpha 1, beta 0,
 * y's increment 1) */
static PyObject *k_call_gemv(PyObject *self, PyObject *args) {
    unsigned long long address;
    int trans, m, n, lda, incx;
    PyObject *arrays[3];
    Py_buffer v[3];
    if (!PyArg_ParseTuple(args, "Kiii(Oi)(Oi)O", &address, &trans, &m, &n, &arrays[0], &lda,
                          &arrays[1], &incx, &arrays[2]))
        return NULL;
    int kind = blas_buffers(address, "call_gemv", arrays, v, 3);
    if (kind < 0) return NULL;
    run_gemv(kind, address, trans, m, n, v[0].buf, lda, v[1].buf, incx, v[2].buf);
    for (int i = 0; i < 3; i++) PyBuffer_Release(&v[i]);
    Py_RETURN_NONE;
}

/* mv(address, a, x, y): y = a @ x for a 2-D a (m, n), 1-D x (n) and a zeroed 1-D y (m) of
 * one dtype, by the cblas_?gemv at `address` as torch's addmv_impl_cpu calls it, in the
 * decisions engine/blas.py's `mv` writes out in Python: 'n' on a column-major a, 't' on a
 * row-major one. Returns False, having done nothing, where that code does more (a that is
 * neither is copied first; empty or oversized operands, or x's stride not positive, go to
 * numpy) and for a matrix with a length-1 axis. */
static PyObject *k_mv(PyObject *self, PyObject *args) {
    unsigned long long address;
    PyObject *arrays[3];
    Py_buffer v[3];
    if (!PyArg_ParseTuple(args, "KOOO", &address, &arrays[0], &arrays[1], &arrays[2]))
        return NULL;
    int kind = blas_buffers(address, "mv", arrays, v, 3);
    if (kind < 0) return NULL;
    int done = 0;
    if (v[0].ndim != 2 || v[1].ndim != 1 || v[2].ndim != 1) {
        PyErr_SetString(PyExc_ValueError, "mv: a matrix and two vectors");
        goto out;
    }
    Py_ssize_t m = v[0].shape[0], n = v[0].shape[1], size = v[0].itemsize;
    Py_ssize_t s0 = v[0].strides[0], s1 = v[0].strides[1], sx = v[1].strides[0];
    if (v[1].shape[0] != n || v[2].shape[0] != m || v[2].strides[0] != size) {
        PyErr_SetString(PyExc_ValueError, "mv: shapes do not match");
        goto out;
    }
    /* NOTE: numpy exports an array that is C-contiguous with C-contiguous strides, which for
     * a length-1 axis differ from its own `strides` (those torch's choice reads): such a
     * matrix is left to the Python path */
    if (m <= 1 || n <= 1 || m > 0x7fffffff || n > 0x7fffffff || sx % size != 0) goto out;
    /* (with both axes longer than 1, the Python code's length-1 cases do not arise) */
    int trans;
    Py_ssize_t rows, cols, lda;
    if (s0 == size && s1 >= m * size) {
        trans = 111, rows = m, cols = n, lda = s1 / size; /* CblasNoTrans */
    } else if (s1 == size && s0 >= n * size) {
        trans = 112, rows = n, cols = m, lda = s0 / size; /* CblasTrans */
    } else {
        goto out; /* the caller copies a to contiguous */
    }
    Py_ssize_t inc = sx / size;
    if (inc <= 0 || lda > 0x7fffffff || inc > 0x7fffffff) goto out;
    run_gemv(kind, address, trans, (int)rows, (int)cols, v[0].buf, (int)lda, v[1].buf, (int)inc,
             v[2].buf);
    done = 1;
out:
    for (int i = 0; i < 3; i++) PyBuffer_Release(&v[i]);
    if (PyErr_Occurred()) return NULL;
    return PyBool_FromLong(done);
}

/* How `_operand` in engine/blas.py reads a 2-D operand (strides in elements into st): 1 as
 * it is (*trans 0) or transposed (*trans 1), 0 when it would be copied first. */
static int gemm_operand(const Py_buffer *v, Py_ssize_t rows, int major, Py_ssize_t lead,
                        int *trans, Py_ssize_t st[2]) {
    for (int i = 0; i < 2; i++) {
        if (v->strides[i] % v->itemsize != 0) return 0;
        st[i] = v->strides[i] / v->itemsize;
    }
    if (st[major] == 1 && st[1 - major] >= lead) { /* lead, rows > 1: the caller's axes */
        *trans = 0;
        return 1;
    }
    if (st[1 - major] == 1 && st[major] >= rows) {
        *trans = 1;
        return 1;
    }
    return 0;
}

/* gemm_into(address, out, a, b, alpha, beta): out = beta * out + alpha * (a @ b) for a (m, k),
 * b (k, n) and a C-contiguous out (m, n) of one dtype, by the cblas_?gemm at `address` as
 * torch's addmm_impl_cpu_ calls it, in the decisions engine/blas.py's `_gemm_into` writes out
 * in Python. Returns False, having done nothing, where that code does more (an operand it
 * copies first, a product too large for MKL_INT) and for any length-1 axis (numpy exports
 * such a buffer with C-contiguous strides, not its own). */
static PyObject *k_gemm_into(PyObject *self, PyObject *args) {
    unsigned long long address;
    double alpha, beta;
    PyObject *arrays[3], *out;
    Py_buffer v[3];
    if (!PyArg_ParseTuple(args, "KOOOdd", &address, &out, &arrays[0], &arrays[1], &alpha,
                          &beta))
        return NULL;
    arrays[2] = out;
    int kind = blas_buffers(address, "gemm_into", arrays, v, 3);
    if (kind < 0) return NULL;
    int done = 0;
    if (v[0].ndim != 2 || v[1].ndim != 2 || v[2].ndim != 2) {
        PyErr_SetString(PyExc_ValueError, "gemm_into: three matrices");
        goto out;
    }
    Py_ssize_t m = v[0].shape[0], k = v[0].shape[1], n = v[1].shape[1];
    if (v[1].shape[0] != k || v[2].shape[0] != m || v[2].shape[1] != n) {
        PyErr_SetString(PyExc_ValueError, "gemm_into: shapes do not match");
        goto out;
    }
    if (m <= 1 || k <= 1 || n <= 1 || m > 0x7fffffff || k > 0x7fffffff || n > 0x7fffffff)
        goto out;
    /* the result is row-major with n > 1: out^T = b^T a^T, column-major, ld m (n's now) */
    const Py_buffer *pa = &v[1], *pb = &v[0];
    Py_ssize_t tmp = m;
    m = n, n = tmp;
    Py_ssize_t sa[2], sb[2];
    int ta, tb;
    if (!gemm_operand(pa, k, 1, m, &ta, sa) || !gemm_operand(pb, n, 1, k, &tb, sb)) goto out;
    /* the leading dimensions gemm_operand accepted are at least what gemm needs (the Python
     * code's normalisation is for length-1 axes only) */
    Py_ssize_t lda = sa[ta ? 1 : 0], ldb = sb[tb ? 1 : 0], ldc = m;
    if (lda > 0x7fffffff || ldb > 0x7fffffff) goto out;
    int flag_a = ta ? 112 : 111, flag_b = tb ? 112 : 111; /* CblasTrans, CblasNoTrans */
    run_gemm(kind, address, flag_a, flag_b, (int)m, (int)n, (int)k, alpha, pa->buf, (int)lda,
             pb->buf, (int)ldb, beta, v[2].buf, (int)ldc);
    done = 1;
out:
    for (int i = 0; i < 3; i++) PyBuffer_Release(&v[i]);
    if (PyErr_Occurred()) return NULL;
    return PyBool_FromLong(done);
}

/* address(a): the address of the first element of any buffer (strided, read-only), as
 * numpy's `a.ctypes.data`, for the BLAS calls engine/blas.py makes through ctypes: a tenth of
 * what ctypes' own buffer route costs. The caller keeps `a` alive while the address is used. */
static PyObject *k_address(PyObject *self, PyObject *arg) {
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_STRIDES) < 0) return NULL;
    void *first = b.buf;
    PyBuffer_Release(&b);
    return PyLong_FromVoidPtr(first);
}

static PyObject *k_lane_sum(PyObject *self, PyObject *args) {
    floats f[2];
    if (!borrow_two(args, f)) return NULL;
    Py_ssize_t rows = f[1].n, n = rows ? f[0].n / rows : 0;
    if (rows == 0 || n == 0 || n * rows != f[0].n) {
        release(f, 2);
        PyErr_SetString(PyExc_ValueError, "lane_sum(rows, dst): rows x n elements, dst rows");
        return NULL;
    }
    const float *x = f[0].view.buf;
    float *y = f[1].view.buf;
    for (Py_ssize_t r = 0; r < rows; r++) y[r] = lane_sum_row(x + r * n, n);
    release(f, 2);
    Py_RETURN_NONE;
}

/* nll_cascade(terms, positions, power): nll_loss's reduction sum (LossNLL.cpp) of the kept
 * samples' terms (float32 or float64, summed in that type), positions their sample indices
 * (int64, ascending): eight partial sums from 0; each term adds to the first, then while the
 * sample index's bits j*power .. (j+1)*power - 1 are 0 (j = 0, 1, ...), partial j adds into
 * j+1 and restarts from 0; at the end the partials add in order from 0. */
#define CASCADE(T)                                                                         \
    do {                                                                                   \
        const T *x = terms.buf;                                                            \
        T part[8] = {0, 0, 0, 0, 0, 0, 0, 0}, total = 0;                                   \
        for (Py_ssize_t i = 0; i < n; i++) {                                               \
            part[0] += x[i];                                                               \
            for (int j = 0; j + 1 < 8; j++) {                                              \
                if ((pos[i] & (mask << (j * power))) != 0) break;                          \
                part[j + 1] += part[j];                                                    \
                part[j] = 0;                                                               \
            }                                                                              \
        }                                                                                  \
        for (int j = 0; j < 8; j++) total += part[j];                                      \
        result = PyFloat_FromDouble((double)total);                                        \
    } while (0)

static PyObject *k_nll_cascade(PyObject *self, PyObject *args) {
    PyObject *a, *b, *result = NULL;
    int power;
    Py_buffer terms, positions;
    if (!PyArg_ParseTuple(args, "OOi", &a, &b, &power)) return NULL;
    if (PyObject_GetBuffer(a, &terms, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(b, &positions, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&terms);
        return NULL;
    }
    const char *ft = terms.format ? terms.format : "";
    Py_ssize_t n = terms.len / (terms.itemsize ? terms.itemsize : 1);
    if (positions.itemsize != 8 || positions.len != n * 8 || power < 1 || power > 7) {
        PyErr_SetString(PyExc_ValueError, "nll_cascade: one int64 position per term, power 1-7");
    } else {
        const int64_t *pos = positions.buf;
        const int64_t mask = ((int64_t)1 << power) - 1;
        if (strcmp(ft, "f") == 0)
            CASCADE(float);
        else if (strcmp(ft, "d") == 0)
            CASCADE(double);
        else
            PyErr_SetString(PyExc_TypeError, "nll_cascade: float32 or float64 terms");
    }
    PyBuffer_Release(&terms);
    PyBuffer_Release(&positions);
    return result;
}

/* total(x): the sum of a float32 or float64 buffer as torch's whole-tensor sum adds it
 * (SumKernel.cpp's cascade_sum, AVX2, one thread; engine/summation.py's total): the vectors
 * of 8 (4) lanes by row_sum, the scalar tail added to 0 in order, then the lanes in order;
 * under one vector the scalar row_sum. row_sum splits its rows four ways (ILP), each
 * stream a multi_row_sum cascade (blocks of 2**p rows, four levels, from 0), the rows left
 * over into the first stream, then the other three into it. */
static int level_power(Py_ssize_t size) {
    int bits = 0; /* CeilLog2(size) */
    while (size > 1 && ((Py_ssize_t)1 << bits) < size) bits++;
    return bits / 4 > 4 ? bits / 4 : 4;
}

#define SUMS(T, SUFFIX)                                                                    \
    /* k <= 32 accumulators: element (i, c) at x[i * stride + c] */                        \
    static void multi_row_sum##SUFFIX(const T *x, Py_ssize_t stride, Py_ssize_t size,       \
                                      int k, T *out) {                                      \
        T acc[4][32];                                                                      \
        memset(acc, 0, sizeof acc);                                                        \
        int power = level_power(size);                                                     \
        Py_ssize_t step = (Py_ssize_t)1 << power, mask = step - 1, i = 0;                  \
        while (i + step <= size) {                                                         \
            for (Py_ssize_t j = 0; j < step; j++, i++)                                     \
                for (int c = 0; c < k; c++) acc[0][c] += x[i * stride + c];                \
            for (int lv = 1; lv < 4; lv++) {                                               \
                for (int c = 0; c < k; c++) {                                              \
                    acc[lv][c] += acc[lv - 1][c];                                          \
                    acc[lv - 1][c] = 0;                                                    \
                }                                                                          \
                if ((i & (mask << (lv * power))) != 0) break;                              \
            }                                                                              \
        }                                                                                  \
        for (; i < size; i++)                                                              \
            for (int c = 0; c < k; c++) acc[0][c] += x[i * stride + c];                    \
        for (int lv = 1; lv < 4; lv++)                                                     \
            for (int c = 0; c < k; c++) acc[0][c] += acc[lv][c];                           \
        memcpy(out, acc[0], (size_t)k * sizeof(T));                                        \
    }                                                                                      \
    /* `size` rows of `lanes` <= 32 values (row i at x + i * stride): a sum per lane */    \
    static void row_sum##SUFFIX(const T *x, Py_ssize_t stride, int lanes, Py_ssize_t size,  \
                                T *out) {                                                  \
        T part[4][32];                                                                     \
        Py_ssize_t quads = size / 4;                                                       \
        for (int s = 0; s < 4; s++)                                                        \
            multi_row_sum##SUFFIX(x + s * stride, 4 * stride, quads, lanes, part[s]);      \
        for (int l = 0; l < lanes; l++) {                                                  \
            T r = part[0][l];                                                              \
            for (Py_ssize_t i = quads * 4; i < size; i++) r += x[i * stride + l];          \
            for (int s = 1; s < 4; s++) r += part[s][l];                                   \
            out[l] = r;                                                                    \
        }                                                                                  \
    }                                                                                      \
    static T total##SUFFIX(const T *x, Py_ssize_t n) {                                     \
        const int lanes = 32 / (int)sizeof(T);                                             \
        T r = 0, sums[8];                                                                  \
        if (n < lanes) {                                                                   \
            if (n) row_sum##SUFFIX(x, 1, 1, n, &r);                                        \
            return r;                                                                      \
        }                                                                                  \
        Py_ssize_t vectors = n / lanes;                                                    \
        row_sum##SUFFIX(x, lanes, lanes, vectors, sums);                                   \
        for (Py_ssize_t i = vectors * lanes; i < n; i++) r += x[i];                        \
        for (int l = 0; l < lanes; l++) r += sums[l];                                      \
        return r;                                                                          \
    }                                                                                      \
    /* The sums down axis 0 of x (count, mid, cols) (strides in elements, the last 1) into  \
     * out (mid, cols): per column the cascade (blocks of 4 vectors of columns, or of 4     \
     * columns under a vector) or, for the columns left over, row_sum. */                  \
    static void columns##SUFFIX(const T *x, Py_ssize_t count, Py_ssize_t mid,               \
                                Py_ssize_t cols, Py_ssize_t s0, Py_ssize_t s1, T *out) {    \
        const Py_ssize_t lanes = 32 / (Py_ssize_t)sizeof(T);                               \
        Py_ssize_t block = cols >= lanes ? 4 * lanes : 4, whole = cols / block * block;    \
        for (Py_ssize_t m = 0; m < mid; m++) {                                             \
            const T *base = x + m * s1;                                                    \
            T *o = out + m * cols;                                                         \
            for (Py_ssize_t c = 0, k; c < cols; c += k) { /* at most 32 columns a pass */  \
                Py_ssize_t end = c < whole ? whole : cols;                                 \
                k = end - c < 32 ? end - c : 32;                                           \
                if (c < whole)                                                             \
                    multi_row_sum##SUFFIX(base + c, s0, count, (int)k, o + c);             \
                else                                                                       \
                    row_sum##SUFFIX(base + c, s0, (int)k, count, o + c);                   \
            }                                                                              \
        }                                                                                  \
    }

SUMS(float, _f)
SUMS(double, _d)

static PyObject *k_total(PyObject *self, PyObject *arg) {
    Py_buffer b;
    double r = 0;
    if (PyObject_GetBuffer(arg, &b, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    const char *f = b.format ? b.format : "";
    int single = strcmp(f, "f") == 0, dbl = strcmp(f, "d") == 0;
    if (single || dbl) {
        Py_BEGIN_ALLOW_THREADS
        r = single ? (double)total_f(b.buf, b.len / 4) : total_d(b.buf, b.len / 8);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&b);
    if (!single && !dbl) {
        PyErr_SetString(PyExc_TypeError, "total: float32 or float64 buffers only");
        return NULL;
    }
    return PyFloat_FromDouble(r);
}

/* The reductions' operands: x read with `x_flags`, dst written C-contiguous, both float32 or
 * both float64. 0 and an exception set (nothing borrowed) on failure. */
static int borrow_reduction(PyObject *args, Py_buffer *x, Py_buffer *y, int x_flags,
                            const char *name) {
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b)) return 0;
    if (PyObject_GetBuffer(a, x, PyBUF_FORMAT | x_flags) < 0) return 0;
    if (PyObject_GetBuffer(b, y, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(x);
        return 0;
    }
    const char *fx = x->format ? x->format : "", *fy = y->format ? y->format : "";
    if (strcmp(fx, fy) != 0 || (strcmp(fx, "f") != 0 && strcmp(fx, "d") != 0)) {
        PyBuffer_Release(x);
        PyBuffer_Release(y);
        PyErr_Format(PyExc_TypeError, "%s: float32 or float64 buffers of one format", name);
        return 0;
    }
    return 1;
}

/* rows(x, dst): `total` of each of dst's length rows of x (engine/summation.py's rows: torch's
 * inner reduction adds each output's row as a whole-tensor sum adds it). x and dst of one
 * format, float32 or float64. */
static PyObject *k_rows(PyObject *self, PyObject *args) {
    Py_buffer x, y;
    if (!borrow_reduction(args, &x, &y, PyBUF_C_CONTIGUOUS, "rows")) return NULL;
    Py_ssize_t count = y.len / y.itemsize;
    Py_ssize_t n = count ? x.len / x.itemsize / count : 0;
    if (count == 0 || n * count * x.itemsize != x.len) {
        PyErr_SetString(PyExc_ValueError, "rows(x, dst): x holds dst's length whole rows");
    } else if (x.itemsize == 4) {
        for (Py_ssize_t r = 0; r < count; r++)
            ((float *)y.buf)[r] = total_f((const float *)x.buf + r * n, n);
    } else {
        for (Py_ssize_t r = 0; r < count; r++)
            ((double *)y.buf)[r] = total_d((const double *)x.buf + r * n, n);
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&y);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* columns(x, out): x a 3-D float32/float64 buffer (count, mid, cols), any positive strides
 * with the last one the item size; out (mid, cols) C-contiguous, the same format. */
static PyObject *k_columns(PyObject *self, PyObject *args) {
    Py_buffer x, y;
    if (!borrow_reduction(args, &x, &y, PyBUF_STRIDES, "columns")) return NULL;
    Py_ssize_t size = x.itemsize;
    if (x.ndim != 3 || x.strides[2] != size || x.strides[0] <= 0 || x.strides[1] <= 0 ||
        x.strides[0] % size || x.strides[1] % size || x.shape[0] < 1 ||
        y.len != x.shape[1] * x.shape[2] * size) {
        PyErr_SetString(PyExc_ValueError,
                        "columns(x, out): x (count, mid, cols) at unit column stride, out (mid, cols)");
    } else if (size == 4) {
        columns_f(x.buf, x.shape[0], x.shape[1], x.shape[2], x.strides[0] / 4, x.strides[1] / 4,
                  y.buf);
    } else {
        columns_d(x.buf, x.shape[0], x.shape[1], x.shape[2], x.strides[0] / 8, x.strides[1] / 8,
                  y.buf);
    }
    PyBuffer_Release(&x);
    PyBuffer_Release(&y);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* softmax_rows(x, out, log) and softmax_back_rows(g, y, out, log): engine/softmax.py's
 * last-dim forward and backward, a row at a time, x (out, g, y) C-contiguous float32 of
 * rows x n with n the last argument. */
static PyObject *softmax_call(PyObject *args, int backward) {
    floats f[3];
    int count = backward ? 3 : 2, log;
    Py_ssize_t n;
    if (PyTuple_GET_SIZE(args) != count + 2) {
        PyErr_SetString(PyExc_TypeError, "softmax kernels: buffers, then n and log");
        return NULL;
    }
    n = PyLong_AsSsize_t(PyTuple_GET_ITEM(args, count));
    log = PyObject_IsTrue(PyTuple_GET_ITEM(args, count + 1));
    if ((n == -1 || log == -1) && PyErr_Occurred()) return NULL;
    if (!borrow(args, f, count)) return NULL;
    float *scratch = n > 0 ? PyMem_Malloc((size_t)n * sizeof(float)) : NULL;
    if (n < 1 || f[0].n % n != 0) {
        PyErr_SetString(PyExc_ValueError, "softmax kernels: whole rows of n, n >= 1");
    } else if (scratch == NULL) {
        PyErr_NoMemory();
    } else if (backward) {
        loops.softmax_back_rows(f[0].view.buf, f[1].view.buf, f[2].view.buf, scratch,
                                f[0].n / n, n, log);
    } else {
        loops.softmax_rows(f[0].view.buf, f[1].view.buf, scratch, f[0].n / n, n, log);
    }
    PyMem_Free(scratch);
    release(f, count);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyObject *k_softmax_rows(PyObject *self, PyObject *args) { return softmax_call(args, 0); }
static PyObject *k_softmax_back_rows(PyObject *self, PyObject *args) {
    return softmax_call(args, 1);
}

/* add_rows(out, index, rows): out[index[i]] += rows[i] for i in order (np.add.at's additions,
 * so the same bits): out (num, dim) and rows (n, dim) C-contiguous of one format, float32 or
 * float64; index n int64 within [0, num). */
static PyObject *k_add_rows(PyObject *self, PyObject *args) {
    PyObject *a, *b, *c;
    Py_buffer out, index, rows;
    if (!PyArg_ParseTuple(args, "OOO", &a, &b, &c)) return NULL;
    if (PyObject_GetBuffer(a, &out, PyBUF_FORMAT | PyBUF_ND | PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(b, &index, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&out);
        return NULL;
    }
    if (PyObject_GetBuffer(c, &rows, PyBUF_FORMAT | PyBUF_ND | PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&out);
        PyBuffer_Release(&index);
        return NULL;
    }
    const char *fo = out.format ? out.format : "", *fr = rows.format ? rows.format : "";
    Py_ssize_t n = index.len / 8, num = out.ndim == 2 ? out.shape[0] : 0;
    Py_ssize_t dim = out.ndim == 2 ? out.shape[1] : 0;
    const int64_t *at = index.buf;
    if (strcmp(fo, fr) != 0 || (strcmp(fo, "f") != 0 && strcmp(fo, "d") != 0)) {
        PyErr_SetString(PyExc_TypeError, "add_rows: float32 or float64 rows of one format");
    } else if (index.itemsize != 8 || out.ndim != 2 || rows.len != n * dim * out.itemsize) {
        PyErr_SetString(PyExc_ValueError, "add_rows: out (num, dim), int64 index (n), rows (n, dim)");
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            if (at[i] < 0 || at[i] >= num) {
                PyErr_SetString(PyExc_IndexError, "add_rows: an index outside out's rows");
                break;
            }
        }
    }
    if (!PyErr_Occurred()) {
        if (out.itemsize == 4) {
            float *o = out.buf;
            const float *r = rows.buf;
            for (Py_ssize_t i = 0; i < n; i++)
                for (Py_ssize_t d = 0; d < dim; d++) o[at[i] * dim + d] += r[i * dim + d];
        } else {
            double *o = out.buf;
            const double *r = rows.buf;
            for (Py_ssize_t i = 0; i < n; i++)
                for (Py_ssize_t d = 0; d < dim; d++) o[at[i] * dim + d] += r[i * dim + d];
        }
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&index);
    PyBuffer_Release(&rows);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
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
    {"call_vml", k_call_vml, METH_VARARGS,
     "call_vml(address, src, dst, mode): the VML function at `address` on src into dst."},
    {"address", k_address, METH_O, "address(a): the address of a buffer's first element."},
    {"call_gemm", k_call_gemm, METH_VARARGS,
     "call_gemm(address, transa, transb, m, n, k, alpha, (a, lda), (b, ldb), beta, (c, ldc)): "
     "column-major cblas_?gemm at `address`."},
    {"gemm_into", k_gemm_into, METH_VARARGS,
     "gemm_into(address, out, a, b, alpha, beta): out = beta out + alpha a @ b by cblas_?gemm "
     "at `address` as torch calls it; False where the caller must copy or use numpy."},
    {"mv", k_mv, METH_VARARGS,
     "mv(address, a, x, y): y = a @ x by cblas_?gemv at `address` as torch calls it; False "
     "where the caller must copy a or use numpy."},
    {"call_gemv", k_call_gemv, METH_VARARGS,
     "call_gemv(address, trans, m, n, (a, lda), (x, incx), y): column-major cblas_?gemv at "
     "`address`, alpha 1, beta 0."},
    {"total", k_total, METH_O, "total(x): torch's whole-tensor sum of x, in x's dtype."},
    {"rows", k_rows, METH_VARARGS, "rows(x, dst): torch's sum of each row of x, into dst."},
    {"columns", k_columns, METH_VARARGS,
     "columns(x, out): torch's sums down axis 0 of a 3-D x, into out."},
    {"softmax_rows", k_softmax_rows, METH_VARARGS,
     "softmax_rows(x, out, n, log): torch's softmax or log_softmax of each row of n."},
    {"softmax_back_rows", k_softmax_back_rows, METH_VARARGS,
     "softmax_back_rows(g, y, out, n, log): their backward, a row of n at a time."},
    {"add_rows", k_add_rows, METH_VARARGS,
     "add_rows(out, index, rows): out[index[i]] += rows[i], in order."},
    {"lane_sum", k_lane_sum, METH_VARARGS,
     "lane_sum(rows, dst): each row summed as torch's vec::reduce_all (AVX2) adds it."},
    {"nll_cascade", k_nll_cascade, METH_VARARGS,
     "nll_cascade(terms, positions, power): nll_loss's cascade sum of the kept terms."},
    {"tanh_back", k_tanh_back, METH_VARARGS,
     "tanh_back(g, y, dst): torch's tanh_backward, g * fma(-y, y, 1)."},
    {"relu_back", k_relu_back, METH_VARARGS,
     "relu_back(g, y, dst): torch's threshold_backward at 0, y <= 0 ? 0 : g."},
    {"sigmoid_back", k_sigmoid_back, METH_VARARGS,
     "sigmoid_back(g, y, dst): torch's sigmoid_backward, g * (1 - y) * y."},
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
