/* The loops of _kernels.c, included twice: once for any CPU, once compiled for AVX2 and FMA.
 * The includer defines LOOP(name) (the function's name in this copy) and LOOP_ATTR. */

LOOP_ATTR static void LOOP(loop_sleef_expf)(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_expf(x[i]);
}

LOOP_ATTR static void LOOP(loop_sleef_logf)(const float *x, float *y, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) y[i] = sleef_logf(x[i]);
}

LOOP_ATTR static void LOOP(loop_sigmoid)(const float *x, float *y, Py_ssize_t n, Py_ssize_t run) {
    Py_ssize_t vec = run - run % 16;
    for (Py_ssize_t row = 0; row < n; row += run) {
        for (Py_ssize_t i = row; i < row + vec; i++)
            y[i] = F(1.0) / (F(1.0) + sleef_expf(F(0.0) - x[i]));
        for (Py_ssize_t i = row + vec; i < row + run; i++) y[i] = F(1.0) / (F(1.0) + expf(-x[i]));
    }
}

LOOP_ATTR static void LOOP(loop_fma)(const float *x, const float *y, const float *z, float *r,
                           Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) r[i] = fmaf(x[i], y[i], z[i]);
}

LOOP_ATTR static void LOOP(loop_tanh_back)(const float *g, const float *y, float *r, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) r[i] = g[i] * fmaf(-y[i], y[i], F(1.0));
}

LOOP_ATTR static void LOOP(loop_sigmoid_back)(const float *g, const float *y, float *r,
                                              Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) r[i] = (g[i] * (F(1.0) - y[i])) * y[i];
}
