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

LOOP_ATTR static void LOOP(loop_relu_back)(const float *g, const float *y, float *r, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) r[i] = y[i] <= F(0.0) ? F(0.0) : g[i];
}

LOOP_ATTR static void LOOP(loop_sigmoid_back)(const float *g, const float *y, float *r,
                                              Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) r[i] = (g[i] * (F(1.0) - y[i])) * y[i];
}

/* engine/softmax.py's forward over the last dim: shifted = x - max (numpy's maximum: the first
 * of equal values, nan wins), e = Sleef's expf, total = lane_sum(e), then log_softmax
 * shifted - logf(total) or softmax e * (1 / total). scratch: n floats. */
LOOP_ATTR static void LOOP(loop_softmax_rows)(const float *x, float *out, float *scratch,
                                              Py_ssize_t rows, Py_ssize_t n, int log) {
    for (Py_ssize_t r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *o = out + r * n;
        float m = xr[0];
        for (Py_ssize_t i = 1; i < n; i++) m = (m >= xr[i] || m != m) ? m : xr[i];
        for (Py_ssize_t i = 0; i < n; i++) o[i] = xr[i] - m;
        for (Py_ssize_t i = 0; i < n; i++) scratch[i] = sleef_expf(o[i]);
        float total = lane_sum_row(scratch, n);
        if (log) {
            float lt = sleef_logf(total);
            for (Py_ssize_t i = 0; i < n; i++) o[i] = o[i] - lt;
        } else {
            float inv = F(1.0) / total;
            for (Py_ssize_t i = 0; i < n; i++) o[i] = scratch[i] * inv;
        }
    }
}

/* Their backward: log_softmax fma(-expf(y), lane_sum(g), g); softmax (g - lane_sum(g * y)) * y
 * (each product rounded before it is added). scratch: n floats. */
LOOP_ATTR static void LOOP(loop_softmax_back_rows)(const float *g, const float *y, float *out,
                                                   float *scratch, Py_ssize_t rows,
                                                   Py_ssize_t n, int log) {
    for (Py_ssize_t r = 0; r < rows; r++) {
        const float *gr = g + r * n, *yr = y + r * n;
        float *o = out + r * n;
        if (log) {
            float s = lane_sum_row(gr, n);
            for (Py_ssize_t i = 0; i < n; i++) o[i] = fmaf(-sleef_expf(yr[i]), s, gr[i]);
        } else {
            for (Py_ssize_t i = 0; i < n; i++) scratch[i] = gr[i] * yr[i];
            float s = lane_sum_row(scratch, n);
            for (Py_ssize_t i = 0; i < n; i++) o[i] = (gr[i] - s) * yr[i];
        }
    }
}
