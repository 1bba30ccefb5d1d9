/* cmd_sinusoidal.c — `gpt2-embed sinusoidal`: the original Transformer's fixed positional
 * encoding, its values and its properties, without any weights.
 *
 * Modes: the (N, D) matrix (default), --dot-curve, --by-distance, --check-rotation,
 * --compare-learned. Matrix values are computed in double and rounded once to float32
 * (what the embedding stage adds), and every format shows those float32 values: table
 * with 6 decimals, csv with 9 significant digits (reads back to the same float32), npy as
 * float32. The curves are measurements in double: csv prints 17 significant digits, npy
 * holds them rounded to float32 (a 1-D array indexed from --from, resp. distance 0).
 *
 * --compare-learned is the one mode that reads weights: GPT-2's wpe gives the learned
 * by-distance curve (figures.c's fig_learned_by_distance, the same numbers the figure
 * draws), and the sinusoidal curve is computed with D = n_embd over the same positions,
 * so the two columns share their axes. It writes table, csv or json (json: parallel
 * arrays plus where the weights came from); npy is not offered there.
 */
#include "cli.h"
#include "figures.h"
#include "load.h"
#include "model.h"
#include "npy.h"
#include "out.h"
#include "sinusoid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: gpt2-embed sinusoidal --len N --dim D [--base B] [--format table|csv|npy] [-o FILE]\n"
    "       gpt2-embed sinusoidal --dot-curve --dim D [--from P] [--to Q] [--base B] [...]\n"
    "       gpt2-embed sinusoidal --by-distance --len N --dim D [--max-distance M] [...]\n"
    "       gpt2-embed sinusoidal --check-rotation --dim D [--len N] [--max-k K] [--base B]\n"
    "       gpt2-embed sinusoidal --compare-learned [--len N] [--max-distance M] [--base B]\n"
    "                  [--weights FILE] [--model NAME] [--format table|csv|json] [-o FILE]\n"
    "       any mode but --check-rotation also takes --plot FILE.png [--width W] [--height H]\n";

static void help(void)
{
    printf("%s\n"
           "The fixed positional encoding of 'Attention Is All You Need' (no weights needed):\n"
           "  PE(pos, 2i) = sin(pos / base^(2i/D)),  PE(pos, 2i+1) = cos(pos / base^(2i/D))\n\n"
           "modes:\n"
           "  (default)          the N x D matrix, positions 0..N-1 (float32 values)\n"
           "  --dot-curve        PE(0)\xC2\xB7PE(pos) for pos = P..Q (default 0..50)\n"
           "  --by-distance      mean cosine similarity of PE(p) and PE(p+d) over p < N-d,\n"
           "                     for d = 0..M (default M = N-1)\n"
           "  --check-rotation   checks that PE(pos+k) is PE(pos) rotated by \xCF\x89_i\xC2\xB7k in every\n"
           "                     pair (2i, 2i+1), for pos < N (default 256), k < K (default 64);\n"
           "                     prints the largest error; exit status 1 if it is 1e-9 or more\n"
           "  --compare-learned  the --by-distance curve of GPT-2's learned wpe (from the weights)\n"
           "                     next to the sinusoidal one of the same width D = n_embd, over\n"
           "                     positions 0..N-1 (default N = n_ctx), d = 0..M (default N-1)\n\n"
           "options:\n"
           "  --len N            number of positions (matrix, by-distance, rotation grid)\n"
           "  --dim D            model width, even and positive\n"
           "  --base B           the base of the wavelengths (default 10000), greater than 1\n"
           "  --format F         table (default), csv, npy (float32; never to a terminal);\n"
           "                     with --compare-learned: table, csv or json\n"
           "  --weights FILE     GPT-2's weights (--compare-learned); else $GPT2_EMBED_WEIGHTS,\n"
           "                     weights/NAME.safetensors, the installed data, the HF cache\n"
           "  --model NAME       gpt2 (default), gpt2-medium, gpt2-large, gpt2-xl, distilgpt2\n"
           "  -o FILE            write to FILE (atomically: a temporary file, then a rename)\n"
           "  --plot FILE.png    draw the figure (matrix: heatmap, x position, y dimension;\n"
           "                     curves: line chart); alone, it replaces the numeric output\n"
           "  --width W, --height H   figure size in pixels\n",
           USAGE);
}

enum mode { M_MATRIX, M_DOT, M_DIST, M_ROT, M_CMP };
enum fmt { F_TABLE, F_CSV, F_NPY, F_JSON };

/* The values one curve mode produced, written in the chosen format. label0 names the
 * index column ("pos", "distance"), label1 the value column. */
static int write_curve(out_file *o, enum fmt fmt, const double *v, size_t n, uint64_t first,
                       const char *label0, const char *label1)
{
    FILE *f = o->f;
    g2e_err err;
    if (fmt == F_NPY) {
        npy_writer w;
        size_t shape[1] = {n};
        if (npy_writer_begin(&w, f, shape, 1, &err))
            goto fail;
        for (size_t i = 0; i < n; i++) {
            float x = (float)v[i];
            if (npy_writer_put(&w, &x, 1, &err))
                goto fail;
        }
        if (npy_writer_end(&w, &err))
            goto fail;
        return 0;
    }
    if (fmt == F_CSV)
        fprintf(f, "%s,%s\n", label0, label1);
    else
        fprintf(f, "%10s  %14s\n", label0, label1);
    for (size_t i = 0; i < n; i++) {
        if (fmt == F_CSV) {
            fprintf(f, "%llu,", (unsigned long long)(first + i));
            out_f64(f, v[i]);
            fputc('\n', f);
        } else {
            fprintf(f, "%10llu  %14.9f\n", (unsigned long long)(first + i), v[i]);
        }
    }
    return 0;
fail:
    cli_error("%s", err.msg);
    return -1;
}

static int write_matrix(out_file *o, enum fmt fmt, size_t len, size_t dim, double base)
{
    FILE *f = o->f;
    g2e_err err;
    g2e_clear(&err);
    sin_table tab;
    if (sin_table_init(&tab, dim, base, &err)) {
        cli_error("%s", err.msg);
        return -1;
    }
    float *row = malloc(dim * sizeof *row);
    if (!row) {
        sin_table_free(&tab);
        cli_error("out of memory for a row of %zu", dim);
        return -1;
    }
    npy_writer w;
    if (fmt == F_NPY) {
        size_t shape[2] = {len, dim};
        if (npy_writer_begin(&w, f, shape, 2, &err))
            goto fail;
    } else if (fmt == F_CSV) {
        fputs("pos", f);
        for (size_t j = 0; j < dim; j++)
            fprintf(f, ",d%zu", j);
        fputc('\n', f);
    } else {
        fprintf(f, "%8s", "pos");
        for (size_t j = 0; j < dim; j++) {
            char h[24];
            snprintf(h, sizeof h, "d%zu", j);
            fprintf(f, " %10s", h);
        }
        fputc('\n', f);
    }
    for (size_t p = 0; p < len; p++) {
        if (sin_table_row_f32(&tab, p, row, &err))
            goto fail;
        if (fmt == F_NPY) {
            if (npy_writer_put(&w, row, dim, &err))
                goto fail;
        } else if (fmt == F_CSV) {
            fprintf(f, "%zu", p);
            for (size_t j = 0; j < dim; j++) {
                fputc(',', f);
                out_f32(f, row[j]);
            }
            fputc('\n', f);
        } else {
            fprintf(f, "%8zu", p);
            for (size_t j = 0; j < dim; j++)
                fprintf(f, " %10.6f", (double)row[j]);
            fputc('\n', f);
        }
        if (ferror(f))
            break;   /* out_commit reports it */
    }
    if (fmt == F_NPY && !ferror(f) && npy_writer_end(&w, &err))
        goto fail;
    free(row);
    sin_table_free(&tab);
    return 0;
fail:
    free(row);
    sin_table_free(&tab);
    cli_error("%s", err.msg);
    return -1;
}

/* JSON has no NaN or infinity: a non-finite value (a NaN in the weights) becomes null. */
static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        out_f64(f, v);
    else
        fputs("null", f);
}

/* The learned-vs-sinusoidal table: distance d = 0..n-1, both curves. */
static void write_compare(FILE *f, enum fmt fmt, const double *sinus, const double *learned,
                          size_t n, const g2e_model *m, const char *path, size_t len,
                          double base)
{
    char name[64];
    fig_model_name(m, name, sizeof name);
    if (fmt == F_JSON) {
        fputs("{\"model\": ", f);
        if (m->size_name)
            out_json_string(f, m->size_name, strlen(m->size_name));
        else
            fputs("null", f);
        fputs(", \"weights\": ", f);
        out_json_string(f, path, strlen(path));
        fprintf(f, ", \"n_ctx\": %zu, \"n_embd\": %zu, \"len\": %zu, \"max_distance\": %zu, "
                   "\"base\": ", m->n_ctx, m->n_embd, len, n - 1);
        out_f64(f, base);
        fputs(",\n \"distance\": [", f);
        for (size_t d = 0; d < n; d++)
            fprintf(f, "%s%zu", d ? ", " : "", d);
        fputs("],\n \"sinusoidal\": [", f);
        for (size_t d = 0; d < n; d++) {
            fputs(d ? ", " : "", f);
            json_num(f, sinus[d]);
        }
        fputs("],\n \"learned\": [", f);
        for (size_t d = 0; d < n; d++) {
            fputs(d ? ", " : "", f);
            json_num(f, learned[d]);
        }
        fputs("]}\n", f);
        return;
    }
    if (fmt == F_CSV) {
        fputs("distance,sinusoidal,learned\n", f);
        for (size_t d = 0; d < n; d++) {
            fprintf(f, "%zu,", d);
            out_f64(f, sinus[d]);
            fputc(',', f);
            out_f64(f, learned[d]);
            fputc('\n', f);
        }
        return;
    }
    fprintf(f, "# mean cosine of positions d apart, over positions 0..%zu\n", len - 1);
    fprintf(f, "# learned:    wpe of %s (n_ctx %zu, n_embd %zu) from %s\n", name, m->n_ctx,
            m->n_embd, path);
    fprintf(f, "# sinusoidal: D = %zu, base %g\n", m->n_embd, base);
    fprintf(f, "%10s  %14s  %14s\n", "distance", "sinusoidal", "learned");
    for (size_t d = 0; d < n; d++)
        fprintf(f, "%10zu  %14.9f  %14.9f\n", d, sinus[d], learned[d]);
}

/* --compare-learned, after the options are checked. */
static int compare_learned(const char *model, const char *weights, int have_len, uint64_t len,
                           int have_max_d, uint64_t max_d, double base, enum fmt fmt,
                           int numeric, const char *out_path, const char *plot_path, int width,
                           int height)
{
    g2e_model *m = NULL;
    char *path = NULL;
    if (load_model(weights, model, &m, &path))
        return EXIT_ERR;
    int rc = EXIT_USAGE;
    double *curves = NULL;
    size_t N = have_len ? (size_t)len : m->n_ctx;
    if (N > m->n_ctx) {
        cli_error("--len %zu is more than the model's %zu positions (wpe has n_ctx rows)", N,
                  m->n_ctx);
        goto done;
    }
    size_t M = have_max_d ? (size_t)max_d : N - 1;
    if (M >= N) {
        cli_error("--max-distance (%zu) must be less than the length (%zu)", M, N);
        goto done;
    }
    rc = EXIT_ERR;
    curves = malloc(2 * (M + 1) * sizeof *curves);
    if (!curves) {
        cli_error("out of memory for %zu values", M + 1);
        goto done;
    }
    double *sinus = curves, *learned = curves + M + 1;
    g2e_err err;
    g2e_clear(&err);
    if (sin_by_distance(N, m->n_embd, base, M, sinus, &err)) {
        cli_error("%s", err.msg);
        goto done;
    }
    if (fig_learned_by_distance(m, N, M, learned))
        goto done;
    if (plot_path) {
        char name[64], legend[96];
        fig_model_name(m, name, sizeof name);
        snprintf(legend, sizeof legend, "learned wpe (%s)", name);
        if (fig_by_distance_curves(N, m->n_embd, base, M, sinus, learned, legend, plot_path,
                                   width, height))
            goto done;
    }
    if (numeric) {
        out_file o;
        if (out_open(&o, out_path, 0) != 0)
            goto done;
        write_compare(o.f, fmt, sinus, learned, M + 1, m, path, N, base);
        if (out_commit(&o) != 0)
            goto done;
    }
    rc = EXIT_OK;
done:
    free(curves);
    free(path);
    model_close(m);
    return rc;
}

int cmd_sinusoidal(int argc, char **argv)
{
    enum mode mode = M_MATRIX;
    enum fmt fmt = F_TABLE;
    int fmt_given = 0, n_modes = 0;
    const char *out_path = NULL, *plot_path = NULL, *v = NULL, *weights = NULL, *model = NULL;
    uint64_t len = 0, dim = 0, from = 0, to = 50, max_d = 0, max_k = 64, width = 0, height = 0;
    int have_len = 0, have_dim = 0, have_max_d = 0, have_range = 0, have_k = 0;
    double base = SIN_DEFAULT_BASE;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help();
            return EXIT_OK;
        } else if (strcmp(a, "--dot-curve") == 0) {
            mode = M_DOT, n_modes++;
        } else if (strcmp(a, "--by-distance") == 0) {
            mode = M_DIST, n_modes++;
        } else if (strcmp(a, "--check-rotation") == 0) {
            mode = M_ROT, n_modes++;
        } else if (strcmp(a, "--compare-learned") == 0) {
            mode = M_CMP, n_modes++;
        } else if (cli_opt(argc, argv, &i, "--weights", &v)) {
            if (!v)
                return EXIT_USAGE;
            weights = v;
        } else if (cli_opt(argc, argv, &i, "--model", &v)) {
            if (!v)
                return EXIT_USAGE;
            model = v;
        } else if (cli_opt(argc, argv, &i, "--len", &v)) {
            if (!v || cli_parse_u64(v, 1, SIN_MAX_POS, "--len", &len))
                return EXIT_USAGE;
            have_len = 1;
        } else if (cli_opt(argc, argv, &i, "--dim", &v)) {
            if (!v || cli_parse_u64(v, 1, SIN_MAX_DIM, "--dim", &dim))
                return EXIT_USAGE;
            have_dim = 1;
        } else if (cli_opt(argc, argv, &i, "--base", &v)) {
            if (!v || cli_parse_double(v, "--base", &base))
                return EXIT_USAGE;
        } else if (cli_opt(argc, argv, &i, "--from", &v)) {
            if (!v || cli_parse_u64(v, 0, SIN_MAX_POS, "--from", &from))
                return EXIT_USAGE;
            have_range = 1;
        } else if (cli_opt(argc, argv, &i, "--to", &v)) {
            if (!v || cli_parse_u64(v, 0, SIN_MAX_POS, "--to", &to))
                return EXIT_USAGE;
            have_range = 1;
        } else if (cli_opt(argc, argv, &i, "--max-distance", &v)) {
            if (!v || cli_parse_u64(v, 0, SIN_MAX_POS, "--max-distance", &max_d))
                return EXIT_USAGE;
            have_max_d = 1;
        } else if (cli_opt(argc, argv, &i, "--max-k", &v)) {
            if (!v || cli_parse_u64(v, 1, SIN_MAX_POS, "--max-k", &max_k))
                return EXIT_USAGE;
            have_k = 1;
        } else if (cli_opt(argc, argv, &i, "--format", &v)) {
            if (!v)
                return EXIT_USAGE;
            if (strcmp(v, "table") == 0) fmt = F_TABLE;
            else if (strcmp(v, "csv") == 0) fmt = F_CSV;
            else if (strcmp(v, "npy") == 0) fmt = F_NPY;
            else if (strcmp(v, "json") == 0) fmt = F_JSON;
            else {
                cli_error("--format must be table, csv, npy or json, got '%s'", v);
                return EXIT_USAGE;
            }
            fmt_given = 1;
        } else if (strcmp(a, "-o") == 0 || cli_opt(argc, argv, &i, "--output", &v)) {
            if (strcmp(a, "-o") == 0) {
                if (i + 1 >= argc) {
                    cli_error("option -o needs a file name");
                    return EXIT_USAGE;
                }
                v = argv[++i];
            }
            if (!v)
                return EXIT_USAGE;
            out_path = v;
        } else if (cli_opt(argc, argv, &i, "--plot", &v)) {
            if (!v)
                return EXIT_USAGE;
            plot_path = v;
        } else if (cli_opt(argc, argv, &i, "--width", &v)) {
            if (!v || cli_parse_u64(v, 200, 32767, "--width", &width))
                return EXIT_USAGE;
        } else if (cli_opt(argc, argv, &i, "--height", &v)) {
            if (!v || cli_parse_u64(v, 150, 32767, "--height", &height))
                return EXIT_USAGE;
        } else {
            cli_error("unknown option '%s' (see 'gpt2-embed sinusoidal --help')", a);
            return EXIT_USAGE;
        }
    }
    if (n_modes > 1) {
        cli_error("choose one of --dot-curve, --by-distance, --check-rotation, --compare-learned");
        return EXIT_USAGE;
    }
    if ((weights || model) && mode != M_CMP) {
        cli_error("--weights and --model belong to --compare-learned (the other modes need no weights)");
        return EXIT_USAGE;
    }
    if (fmt == F_JSON && mode != M_CMP) {
        cli_error("--format json belongs to --compare-learned (use table, csv or npy)");
        return EXIT_USAGE;
    }
    if (mode == M_CMP) {
        if (have_dim) {
            cli_error("--compare-learned takes its width from the weights (D = n_embd): drop --dim");
            return EXIT_USAGE;
        }
        if (have_range || have_k) {
            cli_error("--from, --to and --max-k do not apply to --compare-learned");
            return EXIT_USAGE;
        }
        if (fmt == F_NPY) {
            cli_error("--compare-learned writes table, csv or json, not npy");
            return EXIT_USAGE;
        }
        g2e_err berr;
        g2e_clear(&berr);
        if (sin_check_params(2, base, &berr)) {
            cli_error("%s", berr.msg);
            return EXIT_USAGE;
        }
        if (plot_path && strcmp(plot_path, "-") == 0 && (fmt_given || out_path) &&
            (!out_path || strcmp(out_path, "-") == 0)) {
            cli_error("--plot - and the numeric output cannot both go to standard output");
            return EXIT_USAGE;
        }
        return compare_learned(model, weights, have_len, len, have_max_d, max_d, base, fmt,
                               !plot_path || fmt_given || out_path, out_path, plot_path,
                               (int)width, (int)height);
    }
    if (!have_dim) {
        cli_error("--dim D is required (see 'gpt2-embed sinusoidal --help')");
        return EXIT_USAGE;
    }
    g2e_err err;
    g2e_clear(&err);
    if (sin_check_params((size_t)dim, base, &err)) {
        cli_error("%s", err.msg);
        return EXIT_USAGE;
    }
    if ((mode == M_MATRIX || mode == M_DIST) && !have_len) {
        cli_error("--len N is required (see 'gpt2-embed sinusoidal --help')");
        return EXIT_USAGE;
    }
    if (have_range && mode != M_DOT) {
        cli_error("--from and --to belong to --dot-curve");
        return EXIT_USAGE;
    }
    if (have_max_d && mode != M_DIST) {
        cli_error("--max-distance belongs to --by-distance and --compare-learned");
        return EXIT_USAGE;
    }
    if (have_k && mode != M_ROT) {
        cli_error("--max-k belongs to --check-rotation");
        return EXIT_USAGE;
    }
    if (mode == M_ROT && (plot_path || fmt_given || out_path)) {
        cli_error("--check-rotation prints one line; it takes no --plot, --format or -o");
        return EXIT_USAGE;
    }
    if (mode == M_DOT && from > to) {
        cli_error("--from %llu is after --to %llu", (unsigned long long)from, (unsigned long long)to);
        return EXIT_USAGE;
    }
    if (mode == M_DIST) {
        if (!have_max_d)
            max_d = len - 1;
        if (max_d >= len) {
            cli_error("--max-distance (%llu) must be less than --len (%llu)",
                      (unsigned long long)max_d, (unsigned long long)len);
            return EXIT_USAGE;
        }
    }

    if (plot_path && strcmp(plot_path, "-") == 0 && (fmt_given || out_path) &&
        (!out_path || strcmp(out_path, "-") == 0)) {
        cli_error("--plot - and the numeric output cannot both go to standard output");
        return EXIT_USAGE;
    }

    if (mode == M_ROT) {
        uint64_t n_pos = have_len ? len : 256;
        double worst;
        uint64_t wp, wk;
        size_t wi;
        if (sin_check_rotation((size_t)dim, base, n_pos, max_k, &worst, &wp, &wk, &wi, &err)) {
            cli_error("%s", err.msg);
            return EXIT_ERR;
        }
        int ok = worst < 1e-9;
        printf("rotation check (D=%llu, base %g, pos 0..%llu, k 0..%llu, %llu pairs): "
               "largest error %.3g at pos %llu, k %llu, pair %zu: %s\n",
               (unsigned long long)dim, base, (unsigned long long)(n_pos - 1),
               (unsigned long long)(max_k - 1), (unsigned long long)(dim / 2), worst,
               (unsigned long long)wp, (unsigned long long)wk, wi,
               ok ? "ok (below 1e-9)" : "FAILED (1e-9 or more)");
        if (fflush(stdout) != 0 || ferror(stdout)) {
            cli_error("writing standard output failed");
            return EXIT_ERR;
        }
        return ok ? EXIT_OK : EXIT_ERR;
    }

    if (plot_path) {
        int rc;
        if (mode == M_MATRIX)
            rc = fig_pe_heatmap((size_t)len, (size_t)dim, base, plot_path, (int)width, (int)height);
        else if (mode == M_DOT)
            rc = fig_dot_curve(from, to, (size_t)dim, base, plot_path, (int)width, (int)height);
        else
            rc = fig_by_distance((size_t)len, (size_t)dim, base, (size_t)max_d, NULL, NULL,
                                 plot_path, (int)width, (int)height);
        if (rc)
            return EXIT_ERR;
        if (!fmt_given && !out_path)
            return EXIT_OK;
    }

    /* the curves are computed before the output opens, so a failure leaves nothing */
    double *curve = NULL;
    size_t n = 0;
    if (mode == M_DOT || mode == M_DIST) {
        n = mode == M_DOT ? (size_t)(to - from) + 1 : (size_t)max_d + 1;
        if (n > ((size_t)1 << 28)) {
            cli_error("%zu points is more than this command computes at once (2^28)", n);
            return EXIT_ERR;
        }
        curve = malloc(n * sizeof *curve);
        if (!curve) {
            cli_error("out of memory for %zu values", n);
            return EXIT_ERR;
        }
        int rc = mode == M_DOT
                     ? sin_dot_curve(from, to, (size_t)dim, base, curve, &err)
                     : sin_by_distance((size_t)len, (size_t)dim, base, (size_t)max_d, curve, &err);
        if (rc) {
            cli_error("%s", err.msg);
            free(curve);
            return EXIT_ERR;
        }
    }
    out_file o;
    if (out_open(&o, out_path, fmt == F_NPY) != 0) {
        free(curve);
        return EXIT_ERR;
    }
    int rc;
    if (mode == M_MATRIX)
        rc = write_matrix(&o, fmt, (size_t)len, (size_t)dim, base);
    else if (mode == M_DOT)
        rc = write_curve(&o, fmt, curve, n, from, "pos", "dot");
    else
        rc = write_curve(&o, fmt, curve, n, 0, "distance", "mean_cosine");
    free(curve);
    if (rc) {
        out_abort(&o);
        return EXIT_ERR;
    }
    return out_commit(&o) == 0 ? EXIT_OK : EXIT_ERR;
}
