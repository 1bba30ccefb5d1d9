/* SPDX-License-Identifier: MIT */
/* cmd_tokenize.c — `gpt2-embed tokenize`: text -> GPT-2 token IDs (tiktoken-exact).
 *
 * A text (TEXT arguments, -f FILE mapped without a copy, or standard input) is checked
 * and tokenized whole before anything is written, so bad UTF-8 or a refused special token
 * leaves the output empty; then the IDs are written through one buffer at the speed of
 * the tokenizer. Large texts are tokenized over --threads (the library cuts them where
 * GPT-2's pre-tokenizer must cut: the IDs are the one-thread ones).
 *
 * --jsonl streams: standard input is read as it comes, each block of complete lines is
 * tokenized (over the threads, in order) and written, and flushed at once when the output
 * is a pipe or a terminal; memory stays bounded by the longest line. A bad line stops the
 * run with an error naming its line number after every earlier line has been written; with
 * --keep-going it becomes {"error": "...", "line": N} in the output instead and the run
 * goes on (exit status 1 at the end if any line was bad).
 * Deliberately left out: other JSONL members in the output (only "ids").
 */
#define _GNU_SOURCE /* memrchr */
#include "cli.h"
#include "i18n.h"
#include "json.h"
#include "opt.h"
#include "out.h"
#include "textin.h"
#include "tokchars.h"
#include "tokenizer.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct tokenize_opts {
    int fmt, special, jsonl, lossy, keep_going;
    const char *file, *dir, *out;
    int64_t threads;
} tokenize_opts;

static const char *const FORMATS[] = {"table", "ids", "json", NULL};
static const char *const JSONL_FORMATS[] = {"jsonl", NULL};
enum { FMT_TABLE, FMT_IDS, FMT_JSON };
static const char *const SPECIALS[] = {"token", "text", "error", NULL};

static const opt_def OPTS[] = {
    {.name = "--format", .kind = OPT_CHOICE, .off = offsetof(tokenize_opts, fmt), .choices = FORMATS,
     .def = "table", .help = N_("table: position, ID, piece, byte range; ids: one line of IDs; json: one object")},
    {.name = "--jsonl", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, jsonl),
     .help = N_("batch: one {\"text\": \"...\"} per stdin line -> one {\"ids\": [...]} per output line")},
    {.name = "--keep-going", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, keep_going),
     .help = N_("--jsonl: a bad line gives {\"error\": ..., \"line\": N} and the run goes on")},
    {.name = "--special", .kind = OPT_CHOICE, .off = offsetof(tokenize_opts, special), .choices = SPECIALS,
     .def = "token", .help = N_("<|endoftext|> in the input: ID 50256, ordinary text, or an error")},
    {.name = "--lossy", .kind = OPT_FLAG, .off = offsetof(tokenize_opts, lossy),
     .help = N_("replace invalid UTF-8 with U+FFFD (offsets still refer to the input)")},
    {.name = "--threads", .kind = OPT_INT, .off = offsetof(tokenize_opts, threads), .lo = 0, .hi = 64,
     .metavar = "N", .def = "0", .help = N_("threads for large inputs and --jsonl (0: one per online CPU)")},
    {.name = "--tokenizer", .kind = OPT_FILE, .off = offsetof(tokenize_opts, dir), .metavar = "DIR",
     .help = N_("vocab.json + merges.txt (or encoder.json + vocab.bpe) in DIR")},
    {.name = "--file", .short_name = 'f', .kind = OPT_FILE, .flags = OPTF_STDIN,
     .off = offsetof(tokenize_opts, file), .help = N_("read the text from FILE ('-': standard input)")},
    {.name = "--output", .short_name = 'o', .kind = OPT_FILE, .off = offsetof(tokenize_opts, out),
     .help = N_("write to FILE (atomically; .json/.jsonl/.txt pick the format)")},
    OPT_END,
};

static const opt_cmd CMD = {
    .name = "tokenize",
    .synopsis = N_("[OPTIONS] [TEXT... | -f FILE | -]"),
    .purpose = N_("GPT-2 token IDs of TEXT (several TEXT arguments are joined with single spaces),\n"
                  "of FILE, or of standard input ('-'), exactly as tiktoken's gpt2 encoding.\n"
                  "Put -- before a TEXT that starts with a dash."),
    .examples = N_("  gpt2-embed tokenize \"Hello world\"\n"
                   "  gpt2-embed tokenize --format ids -f book.txt -o book.ids.txt\n"
                   "  gpt2-embed tokenize --jsonl < texts.jsonl > ids.jsonl\n"),
    .opts = OPTS,
    .min_pos = 0,
    .max_pos = -1,
    .pos_name = "TEXT",
};
const opt_cmd *const cmd_tokenize_spec = &CMD; /* for the manual (commands.def OPTS) */

/* ------------------------------------------------------------ the output buffer */

#define WB_SIZE (1u << 18)

/* Output assembled in memory and handed to the FILE in large writes. */
typedef struct wbuf {
    char *p;
    size_t n, cap;
    FILE *f;
    int oom, werr;
} wbuf;

static int wb_room(wbuf *b, size_t extra)
{
    if (b->oom)
        return -1;
    if (b->n + extra <= b->cap)
        return 0;
    size_t c = b->cap ? b->cap : 256;
    while (c < b->n + extra)
        c *= 2;
    char *q = realloc(b->p, c);
    if (!q) {
        b->oom = 1;
        return -1;
    }
    b->p = q;
    b->cap = c;
    return 0;
}

/* Writes what is buffered (keeps the buffer). */
static void wb_flush(wbuf *b)
{
    if (!b->f)
        return; /* an in-memory buffer (a --jsonl thread's share): its owner writes it */
    if (b->n && !b->werr && fwrite(b->p, 1, b->n, b->f) != b->n)
        b->werr = errno ? errno : EIO;
    b->n = 0;
}

static void wb_put(wbuf *b, const void *s, size_t n)
{
    if (!wb_room(b, n)) {
        memcpy(b->p + b->n, s, n);
        b->n += n;
    }
}

static void wb_str(wbuf *b, const char *s) { wb_put(b, s, strlen(s)); }

/* Decimal digits of v at d (room for 20), returning the end: the length first, then two
 * digits per step from the end, straight into place. */
static char *put_u64(char *d, uint64_t v)
{
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536"
                                   "37383940414243444546474849505152535455565758596061626364656667686970717273"
                                   "7475767778798081828384858687888990919293949596979899";
    int n = 1;
    for (uint64_t x = v; x >= 10; x /= 10)
        n++;
    char *e = d + n, *q = e;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, pairs + 2 * r, 2);
    }
    if (v >= 10)
        memcpy(q - 2, pairs + 2 * v, 2);
    else
        q[-1] = (char)('0' + v);
    return e;
}

/* The same for a token ID (below 10^6 in any vocabulary tokenizer.h loads). */
static inline char *put_id(char *d, uint32_t v)
{
    if (v >= 1000000)
        return put_u64(d, v);
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536"
                                   "37383940414243444546474849505152535455565758596061626364656667686970717273"
                                   "7475767778798081828384858687888990919293949596979899";
    int n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : 6;
    char *e = d + n, *q = e;
    while (v >= 100) {
        unsigned r = v % 100;
        v /= 100;
        q -= 2;
        memcpy(q, pairs + 2 * r, 2);
    }
    if (v >= 10)
        memcpy(q - 2, pairs + 2 * v, 2);
    else
        q[-1] = (char)('0' + v);
    return e;
}

static void wb_u64(wbuf *b, uint64_t v)
{
    if (!wb_room(b, 20))
        b->n = (size_t)(put_u64(b->p + b->n, v) - b->p);
}

/* The decimal text of every ID of the vocabulary, 8 bytes each: up to 6 digits, then the
 * length in byte 7 (IDs are below 10^6, tokenizer.h's limit). One copy per ID instead of
 * divisions: formatting millions of IDs costs about what tokenizing them does otherwise. */
static char (*id_text)[8];
static uint32_t id_text_n, id_text_vocab; /* the table's size; the vocabulary's, to build it */

/* Builds the table (before any thread starts) when the output will be long enough to pay
 * for it: from 2^16 IDs, or a --jsonl block of 64 KB. */
static void id_text_build(uint32_t n_vocab)
{
    if (id_text || !n_vocab || !(id_text = malloc((size_t)n_vocab * sizeof *id_text)))
        return;
    for (uint32_t v = 0; v < n_vocab; v++) {
        char tmp[24];
        size_t l = (size_t)(put_u64(tmp, v) - tmp);
        memset(id_text[v], 0, 8);
        memcpy(id_text[v], tmp, l);
        id_text[v][7] = (char)l;
    }
    id_text_n = n_vocab;
}

/* ids[0..n) as decimals separated by sep, in chunks so the buffer stays small. */
static void wb_ids(wbuf *b, const uint32_t *ids, size_t n, char sep)
{
    for (size_t i = 0; i < n;) {
        size_t m = n - i < 16384 ? n - i : 16384;
        if (wb_room(b, m * 12 + 8))
            return;
        char *d = b->p + b->n;
        for (size_t k = 0; k < m; k++, i++) {
            if (i)
                *d++ = sep;
            if (ids[i] < id_text_n) {
                memcpy(d, id_text[ids[i]], 8);
                d += id_text[ids[i]][7];
            } else {
                d = put_id(d, ids[i]);
            }
        }
        b->n = (size_t)(d - b->p);
        if (b->n >= WB_SIZE)
            wb_flush(b);
    }
}

/* ------------------------------------------------------------ formats */

/* The characters behind each token (tokchars.h), or NULL when out of memory (reported by the
 * caller through b->oom). The caller frees. */
static tokchars_span *spans_of(wbuf *b, const char *text, size_t len, const tok_ids *r)
{
    tokchars_span *sp = malloc((r->n ? r->n : 1) * sizeof *sp);
    if (!sp || tokchars_spans(text, len, r->offsets, r->n, sp, NULL)) {
        free(sp);
        b->oom = 1;
        return NULL;
    }
    return sp;
}

/* "tokens": one object per token with its ID and tokchars_json's members (offset, chars,
 * char_index, char_part), written by the one JSON writer straight onto the FILE. */
static void json_tokens(wbuf *b, const char *text, size_t len, const tok_ids *r)
{
    tokchars_span *sp = spans_of(b, text, len, r);
    if (!sp)
        return;
    wb_flush(b);
    json_w w;
    json_init(&w, b->f);
    json_begin_array(&w);
    for (size_t i = 0; i < r->n; i++) {
        json_begin_object(&w);
        json_key(&w, "id");
        json_uint(&w, r->ids[i]);
        tokchars_json(&w, text, &sp[i]);
        json_end_object(&w);
    }
    json_end_array(&w);
    free(sp);
}

static void format_json(wbuf *b, const tok_tokenizer *t, const char *text, size_t len, const tok_ids *r)
{
    wb_str(b, "{\"n_tokens\":");
    wb_u64(b, r->n);
    wb_str(b, ",\"ids\":[");
    wb_ids(b, r->ids, r->n, ',');
    wb_str(b, "],\"offsets\":[");
    for (size_t i = 0; i < r->n; i++) {
        wb_str(b, i ? ",[" : "[");
        wb_u64(b, r->offsets[i]);
        wb_str(b, ",");
        wb_u64(b, r->offsets[i + 1]);
        wb_str(b, "]");
    }
    wb_str(b, "],\"pieces\":[");
    for (size_t i = 0; i < r->n; i++) {
        const uint8_t *p;
        size_t pl;
        tok_piece(t, r->ids[i], &p, &pl, NULL);
        char *lit = json_string_alloc((const char *)p, pl);
        if (!lit) {
            b->oom = 1;
            return;
        }
        if (i)
            wb_str(b, ",");
        wb_str(b, lit);
        free(lit);
        if (b->n >= WB_SIZE)
            wb_flush(b);
    }
    wb_str(b, "],\"tokens\":");
    json_tokens(b, text, len, r);
    wb_str(b, "}\n");
}

/* Pads to `width` display columns (translated headings are wider per byte). */
static void wb_pad(wbuf *b, const char *s, size_t width, int right)
{
    size_t w = out_display_width(s);
    if (!right)
        wb_str(b, s);
    for (; w < width; w++)
        wb_str(b, " ");
    if (right)
        wb_str(b, s);
}

/* pos, id, the piece made visible (out_piece_visible) or, for a token holding part of a
 * character, that character and its share (犬 (1/3), tokchars.h), padded to 22 display
 * columns, byte range. */
static void format_table(wbuf *b, const tok_tokenizer *t, const char *text, size_t len, const tok_ids *r)
{
    tokchars_span *sp = spans_of(b, text, len, r);
    if (!sp)
        return;
    wb_pad(b, _("pos"), 5, 1);   /* headings by display width (translations are wider) */
    wb_str(b, "  ");
    wb_pad(b, _("id"), 6, 1);
    wb_str(b, "  ");
    wb_pad(b, _("piece"), 22, 0);
    wb_str(b, "  ");
    wb_str(b, _("bytes"));
    wb_str(b, "\n");
    for (size_t i = 0; i < r->n && !b->oom; i++) {
        char head[64];
        snprintf(head, sizeof head, "%5zu  %6u  ", i, r->ids[i]);
        wb_str(b, head);
        const uint8_t *p;
        size_t pl;
        tok_piece(t, r->ids[i], &p, &pl, NULL);
        char *v = sp[i].head.n || sp[i].tail.n ? tokchars_display_alloc(text, &sp[i])
                                                : out_piece_visible((const char *)p, pl);
        if (!v) {
            b->oom = 1;
            break;
        }
        wb_str(b, v);
        size_t cols = out_display_width(v);
        free(v);
        for (; cols < 22; cols++)
            wb_str(b, " ");
        wb_str(b, "  ");
        wb_u64(b, r->offsets[i]);
        wb_str(b, "..");
        wb_u64(b, r->offsets[i + 1]);
        wb_str(b, "\n");
        if (b->n >= WB_SIZE)
            wb_flush(b);
    }
    if (!r->n)
        wb_str(b, _("(no tokens)\n"));
    free(sp);
}

/* A slice of a long ID list formatted by one thread into its own buffer. */
typedef struct ids_part {
    wbuf b;
    const uint32_t *ids;
    size_t n;
} ids_part;

static void *ids_part_run(void *arg)
{
    ids_part *p = arg;
    for (size_t i = 0; i < p->n; i += 16384) { /* unflushed: the caller writes it in order */
        size_t m = p->n - i < 16384 ? p->n - i : 16384;
        if (wb_room(&p->b, m * 12 + 8))
            break;
        char *d = p->b.p + p->b.n;
        for (size_t k = i; k < i + m; k++) {
            *d++ = ' ';
            memcpy(d, id_text[p->ids[k]], 8);
            d += id_text[p->ids[k]][7];
        }
        p->b.n = (size_t)(d - p->b.p);
    }
    return NULL;
}

/* ids[0..n) separated by spaces, the formatting spread over `threads` threads when the list
 * is long (it would otherwise be a serial tail after the threaded tokenizing): in rounds of
 * ROUND IDs per thread, so that the buffers stay small and are reused. */
static void wb_ids_spaced(wbuf *b, const uint32_t *ids, size_t n, unsigned threads)
{
    enum { MAXP = 16, ROUND = 1 << 18 };
    if (threads > MAXP)
        threads = MAXP;
    if (n >= 65536)
        id_text_build(id_text_vocab);
    /* (the IDs come from the tokenizer whose n_vocab sized the table: all are in it) */
    if (threads < 2 || n < ((size_t)1 << 20) || !id_text) {
        wb_ids(b, ids, n, ' ');
        return;
    }
    ids_part pt[MAXP] = {0};
    wb_ids(b, ids, 1, ' '); /* the first ID has no space before it */
    for (size_t at = 1; at < n && !b->oom && !b->werr;) {
        pthread_t th[MAXP];
        int started[MAXP] = {0};
        unsigned m = 0;
        for (; m < threads && at < n; m++) {
            size_t c = n - at < ROUND ? n - at : ROUND;
            pt[m].b.n = 0;
            pt[m].ids = ids + at;
            pt[m].n = c;
            at += c;
        }
        for (unsigned k = 1; k < m; k++)
            started[k] = pthread_create(&th[k], NULL, ids_part_run, &pt[k]) == 0;
        ids_part_run(&pt[0]);
        wb_flush(b);
        for (unsigned k = 0; k < m; k++) {
            if (k && started[k])
                pthread_join(th[k], NULL);
            else if (k)
                ids_part_run(&pt[k]);
            if (pt[k].b.oom)
                b->oom = 1;
            else if (pt[k].b.n && !b->werr && fwrite(pt[k].b.p, 1, pt[k].b.n, b->f) != pt[k].b.n)
                b->werr = errno ? errno : EIO;
        }
    }
    for (unsigned k = 0; k < MAXP; k++)
        free(pt[k].b.p);
}

static void format(wbuf *b, const tok_tokenizer *t, const char *text, size_t len, const tok_ids *r, int fmt)
{
    if (fmt == FMT_IDS) {
        wb_ids_spaced(b, r->ids, r->n, tok_threads(t));
        wb_str(b, "\n");
    } else if (fmt == FMT_JSON) {
        format_json(b, t, text, len, r);
    } else {
        format_table(b, t, text, len, r);
    }
}

/* ------------------------------------------------------------ --jsonl input lines */

static size_t skip_ws(const char *s, size_t n, size_t i)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return i;
}

static int hex4(const char *s, size_t n, size_t i, unsigned *v)
{
    if (i + 4 > n)
        return -1;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[i + k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (unsigned)d;
    }
    return 0;
}

static void put_utf8(wbuf *b, unsigned cp)
{
    uint8_t u[4];
    size_t k;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp, k = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xC0 | cp >> 6), u[1] = (uint8_t)(0x80 | (cp & 0x3F)), k = 2;
    } else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xE0 | cp >> 12), u[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp & 0x3F)), k = 3;
    } else {
        u[0] = (uint8_t)(0xF0 | cp >> 18), u[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F)), u[3] = (uint8_t)(0x80 | (cp & 0x3F)), k = 4;
    }
    wb_put(b, u, k);
}

/* One \u escape at s[*j] (after the "\u"), a surrogate pair joined; a lone surrogate is
 * U+FFFD when lossy, else an error. */
static const char *json_u_escape(const char *s, size_t n, size_t *j, wbuf *out, int lossy)
{
    unsigned cp, lo;
    if (hex4(s, n, *j, &cp))
        return "bad \\u escape";
    *j += 4;
    if (cp >= 0xD800 && cp < 0xDC00 && *j + 6 <= n && s[*j] == '\\' && s[*j + 1] == 'u' &&
        !hex4(s, n, *j + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        *j += 6;
    } else if (cp >= 0xD800 && cp < 0xE000) {
        if (!lossy)
            return "lone surrogate \\u escape (use --lossy to replace it)";
        cp = 0xFFFD;
    }
    put_utf8(out, cp);
    return NULL;
}

/* Decodes the JSON string at s[*i] into out: its exact bytes, \u0000 and all (which is why
 * this is not cJSON: its strings end at a NUL, and it refuses lone surrogates that --lossy
 * must replace). Returns NULL or an error text. */
static const char *json_string(const char *s, size_t n, size_t *i, wbuf *out, int lossy)
{
    if (*i >= n || s[*i] != '"')
        return "expected a string";
    size_t j = *i + 1;
    for (;;) {
        if (j >= n)
            return "unterminated string";
        char c = s[j];
        if (c == '"')
            break;
        if ((unsigned char)c < 0x20)
            return "control character in a string";
        if (c != '\\') {
            size_t r = j;
            while (r + 8 <= n) { /* eight bytes at a time: none is '"', '\\' or below 0x20 */
                uint64_t w, lo = 0x0101010101010101ull, hi = 0x8080808080808080ull;
                memcpy(&w, s + r, 8);
                uint64_t q = w ^ (lo * '"'), bs = w ^ (lo * '\\');
                uint64_t hit = (((q - lo) & ~q) | ((bs - lo) & ~bs) | ((w - lo * 0x20) & ~w)) & hi;
                if (hit) { /* the lowest flagged byte is exact (little-endian) */
                    r += (size_t)__builtin_ctzll(hit) >> 3;
                    break;
                }
                r += 8;
            }
            while (r < n && s[r] != '"' && s[r] != '\\' && (unsigned char)s[r] >= 0x20)
                r++;
            wb_put(out, s + j, r - j);
            j = r;
            continue;
        }
        if (j + 1 >= n)
            return "bad escape";
        char e = s[j + 1];
        j += 2;
        char simple = e == '"' || e == '\\' || e == '/' ? e : e == 'n' ? '\n' : e == 't' ? '\t'
                    : e == 'r' ? '\r' : e == 'b' ? '\b' : e == 'f' ? '\f' : 0;
        if (simple) {
            wb_put(out, &simple, 1);
            continue;
        }
        if (e != 'u')
            return "bad escape";
        const char *err = json_u_escape(s, n, &j, out, lossy);
        if (err)
            return err;
    }
    *i = j + 1;
    return NULL;
}

/* Skips the JSON value at s[*i] after checking it with cJSON (strict literals, numbers,
 * nesting), so that {"text": "x", "n": tru} is refused. */
static const char *json_skip(const char *s, size_t n, size_t *i)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(s + *i, n - *i, &end, 0);
    if (!v)
        return "invalid JSON value";
    cJSON_Delete(v);
    *i = (size_t)(end - s);
    return NULL;
}

/* The "text" member of a one-line JSON object, decoded into text. */
static const char *jsonl_text(const char *s, size_t n, wbuf *text, wbuf *key, int lossy)
{
    size_t i = skip_ws(s, n, 0);
    int found = 0;
    if (i >= n || s[i] != '{')
        return "expected a JSON object {\"text\": \"...\"}";
    i = skip_ws(s, n, i + 1);
    if (i < n && s[i] == '}')
        return "no \"text\" member";
    for (;;) {
        const char *e = NULL;
        int is_text = n - i >= 6 && memcmp(s + i, "\"text\"", 6) == 0; /* the usual spelling */
        if (is_text) {
            i += 6;
        } else {
            key->n = 0;
            e = json_string(s, n, &i, key, 1);
            is_text = !e && key->n == 4 && memcmp(key->p, "text", 4) == 0;
        }
        if (e)
            return e;
        i = skip_ws(s, n, i);
        if (i >= n || s[i] != ':')
            return "expected ':'";
        i = skip_ws(s, n, i + 1);
        if (is_text && found)
            return "\"text\" given twice";
        if (is_text && (e = json_string(s, n, &i, text, lossy)))
            return e;
        if (!is_text && (e = json_skip(s, n, &i)))
            return e;
        found |= is_text;
        i = skip_ws(s, n, i);
        if (i < n && s[i] == ',') {
            i = skip_ws(s, n, i + 1);
            continue;
        }
        if (i < n && s[i] == '}')
            break;
        return "expected ',' or '}'";
    }
    if (skip_ws(s, n, i + 1) != n)
        return "trailing characters after the object";
    return found ? NULL : "no \"text\" member";
}

/* ------------------------------------------------------------ --jsonl */

#define JSONL_STOPPED 1 /* a bad line ended the run; every earlier line was written */

/* One block of complete lines: their decoded texts side by side in `arena`. */
typedef struct jblock {
    size_t n, cap;
    size_t *at, *len, *line; /* per kept (non-blank) line: offset in arena, length, number */
    const char **err;        /* parse error, or NULL */
    const char **texts;
    size_t *counts;
    int *rc;
    wbuf arena;
} jblock;

static int jb_grow(jblock *b)
{
    if (b->n < b->cap)
        return 0;
    size_t c = b->cap ? b->cap * 2 : 1024;
    void *p[7] = {realloc(b->at, c * sizeof *b->at), NULL};
    if (p[0]) b->at = p[0];
    if ((p[1] = realloc(b->len, c * sizeof *b->len))) b->len = p[1];
    if ((p[2] = realloc(b->line, c * sizeof *b->line))) b->line = p[2];
    if ((p[3] = realloc(b->err, c * sizeof *b->err))) b->err = p[3];
    if ((p[4] = realloc(b->texts, c * sizeof *b->texts))) b->texts = p[4];
    if ((p[5] = realloc(b->counts, c * sizeof *b->counts))) b->counts = p[5];
    if ((p[6] = realloc(b->rc, c * sizeof *b->rc))) b->rc = p[6];
    for (int k = 0; k < 7; k++)
        if (!p[k])
            return -1;
    b->cap = c;
    return 0;
}

static void jb_free(jblock *b)
{
    free(b->at), free(b->len), free(b->line), free(b->err), free(b->texts), free(b->counts), free(b->rc);
    free(b->arena.p);
}

#define JSONL_PARTS 16  /* most threads one block of lines is spread over */
#define JSONL_PART_MIN (64u << 10) /* bytes of lines per thread, at least */

/* One thread's share of a block: its lines parsed, tokenized by its own tokenizer and
 * written into its own buffer; the first bad line (unless --keep-going) ends its share. */
typedef struct jpart {
    const tokenize_opts *o;
    tok_tokenizer *t;
    const char *s;
    size_t n, line0;  /* its lines s[0..n); the line number before them */
    jblock b;
    wbuf out, key;
    size_t bad;       /* bad lines written as error objects */
    int stopped, oom; /* stopped: at line stop_line, for stop_msg */
    size_t stop_line;
    char stop_msg[G2E_ERR_MSG_MAX];
} jpart;

typedef struct jrun {
    tok_tokenizer *t;
    const tokenize_opts *o;
    FILE *f;
    unsigned threads; /* shares per block at most (the tokenizers themselves run one thread) */
    int line_flush;   /* flush after every block: the output is a pipe or a terminal */
    size_t line;      /* lines read so far */
    size_t bad;       /* bad lines (--keep-going) */
    jpart part[JSONL_PARTS];
} jrun;

/* Parses the lines of p->s into p->b (blank lines are skipped). */
static int jb_parse(jpart *p)
{
    jblock *b = &p->b;
    size_t line = p->line0;
    b->n = 0;
    b->arena.n = 0;
    for (size_t pos = 0; pos < p->n;) {
        const char *nl = memchr(p->s + pos, '\n', p->n - pos);
        size_t e = nl ? (size_t)(nl - p->s) : p->n;
        line++;
        if (skip_ws(p->s, e, pos) < e) {
            if (jb_grow(b))
                return -1;
            size_t k = b->n++;
            b->at[k] = b->arena.n;
            b->line[k] = line;
            b->err[k] = jsonl_text(p->s + pos, e - pos, &b->arena, &p->key, p->o->lossy);
            b->len[k] = b->arena.n - b->at[k];
            if (b->arena.oom)
                return -1;
        }
        pos = e + 1;
    }
    return 0;
}

/* Line k's problem: an error object (--keep-going), or the share stops there. */
static void jb_bad(jpart *p, size_t k, const char *msg)
{
    if (!p->o->keep_going) {
        p->stopped = 1;
        p->stop_line = p->b.line[k];
        snprintf(p->stop_msg, sizeof p->stop_msg, "%s", msg);
        return;
    }
    p->bad++;
    char *lit = json_string_alloc(msg, strlen(msg));
    wb_str(&p->out, "{\"error\":");
    wb_str(&p->out, lit ? lit : "\"out of memory\"");
    wb_str(&p->out, ",\"line\":");
    wb_u64(&p->out, p->b.line[k]);
    wb_str(&p->out, "}\n");
    free(lit);
}

/* A share: parse, tokenize (one call for all its lines), format. */
static void *jb_run(void *arg)
{
    jpart *p = arg;
    jblock *b = &p->b;
    tok_special sp = (tok_special)p->o->special;
    unsigned flags = TOK_NO_OFFSETS | (p->o->lossy ? TOK_LOSSY : 0);
    uint32_t *ids = NULL;
    p->out.n = 0;
    if (jb_parse(p)) {
        p->oom = 1;
        return NULL;
    }
    for (size_t k = 0; k < b->n; k++) {
        b->texts[k] = !b->err[k] && b->arena.p ? b->arena.p + b->at[k] : "";
        if (b->err[k])
            b->len[k] = 0;
    }
    if (tok_encode_batch(p->t, b->n, b->texts, b->len, sp, flags, &ids, b->counts, b->rc)) {
        p->oom = 1;
        return NULL;
    }
    size_t at = 0;
    for (size_t k = 0; k < b->n && !p->stopped; k++) {
        if (b->err[k]) {
            jb_bad(p, k, b->err[k]);
        } else if (b->rc[k]) {
            g2e_err err;
            tok_ids again;
            tok_encode(p->t, b->texts[k], b->len[k], sp, flags, &again, NULL, &err);
            tok_ids_free(&again);
            jb_bad(p, k, err.msg);
        } else {
            wb_str(&p->out, "{\"ids\":[");
            wb_ids(&p->out, ids ? ids + at : ids, b->counts[k], ',');
            wb_str(&p->out, "]}\n");
            at += b->counts[k];
        }
    }
    free(ids);
    p->oom |= p->out.oom;
    return NULL;
}

/* Splits the complete lines s[0..n) into shares (at line ends, about equal in bytes) over
 * the tokenizer's threads, runs them, and writes them in order. Returns 0, JSONL_STOPPED
 * or -1 (reported). */
static int jsonl_block(jrun *j, const char *s, size_t n)
{
    unsigned parts = j->threads;
    if (parts > JSONL_PARTS)
        parts = JSONL_PARTS;
    if (parts > n / JSONL_PART_MIN)
        parts = (unsigned)(n / JSONL_PART_MIN);
    if (parts < 1)
        parts = 1;
    size_t at = 0, line = j->line;
    unsigned m = 0;
    for (unsigned k = 0; k < parts && at < n; k++) {
        jpart *p = &j->part[m];
        tok_tokenizer *w = tok_worker(j->t, m);
        size_t want = (n - at) / (parts - k); /* this share's bytes, ending at a line end */
        want = want ? want : 1;
        const char *nl = k + 1 < parts ? memchr(s + at + want - 1, '\n', n - at - want + 1) : NULL;
        size_t end = nl ? (size_t)(nl - s) + 1 : n;
        if (!w)
            break;
        p->o = j->o, p->t = w, p->s = s + at, p->n = end - at, p->line0 = line;
        p->bad = 0, p->stopped = p->oom = 0;
        for (const char *q = p->s; (q = memchr(q, '\n', (size_t)(p->s + p->n - q))); q++)
            line++;
        at = end;
        m++;
    }
    if (at < n) { /* no worker: the rest in the last share */
        j->part[m - 1].n = (size_t)(s + n - j->part[m - 1].s);
        for (const char *q = s + at; (q = memchr(q, '\n', (size_t)(s + n - q))); q++)
            line++;
    }
    pthread_t th[JSONL_PARTS];
    int started[JSONL_PARTS] = {0};
    if (n >= JSONL_PART_MIN)
        id_text_build(id_text_vocab); /* read-only from here on */
    for (unsigned k = 1; k < m; k++)
        started[k] = pthread_create(&th[k], NULL, jb_run, &j->part[k]) == 0;
    jb_run(&j->part[0]);
    int rc = 0;
    for (unsigned k = 0; k < m; k++) {
        jpart *p = &j->part[k];
        if (k && started[k])
            pthread_join(th[k], NULL);
        else if (k)
            jb_run(p);
        if (rc)
            continue;
        if (p->oom) {
            cli_error("out of memory with standard input line %zu", p->line0 + 1);
            rc = -1;
            continue;
        }
        j->bad += p->bad;
        if (p->out.n && fwrite(p->out.p, 1, p->out.n, j->f) != p->out.n) {
            cli_error("cannot write the output: %s", strerror(errno));
            rc = -1;
        } else if (p->stopped) {
            fflush(j->f);
            cli_error("standard input line %zu: %s", p->stop_line, p->stop_msg);
            rc = JSONL_STOPPED;
        }
    }
    j->line = line + (n && s[n - 1] != '\n'); /* a last line without its newline (end of input) */
    if (!rc && j->line_flush && fflush(j->f)) {
        cli_error("cannot write the output: %s", strerror(errno));
        rc = -1;
    }
    return rc;
}

static void jrun_free(jrun *j)
{
    for (unsigned k = 0; k < JSONL_PARTS; k++) {
        jb_free(&j->part[k].b);
        free(j->part[k].out.p);
        free(j->part[k].key.p);
    }
}

/* Reads standard input block by block; each block's complete lines are processed at once.
 * Returns 0, JSONL_STOPPED, or -1 after printing an error. */
static int run_jsonl(jrun *j)
{
    size_t cap = 1 << 20, have = 0;
    char *buf = malloc(cap);
    int rc = buf ? 0 : -1, eof = 0;
    while (!rc && !eof) {
        if (have == cap) { /* a line longer than the buffer */
            char *nb = cap < TEXTIN_MAX ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                rc = -1;
                break;
            }
            buf = nb, cap *= 2;
        }
        ssize_t k = read(STDIN_FILENO, buf + have, cap - have);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            cli_error("cannot read standard input: %s", strerror(errno));
            rc = -2;
            break;
        }
        eof = k == 0;
        have += (size_t)k;
        char *last = eof ? buf + have : memrchr(buf, '\n', have);
        size_t done = last ? (size_t)(last - buf) + (eof ? 0 : 1) : 0;
        if (!done)
            continue;
        rc = jsonl_block(j, buf, done);
        memmove(buf, buf + done, have - done);
        have -= done;
    }
    if (rc == -1 && (!buf || have == cap))
        cli_error("out of memory reading standard input (a line of %zu bytes)", have);
    free(buf);
    return rc == -2 ? -1 : rc;
}

/* ------------------------------------------------------------ the command */

/* The TEXT arguments joined by single spaces (a new string), or the one argument. */
static char *joined(const opt_parsed *p)
{
    size_t total = 1;
    for (int k = 0; k < p->npos; k++)
        total += strlen(p->pos[k]) + 1;
    char *s = malloc(total), *w = s;
    if (!s)
        return NULL;
    for (int k = 0; k < p->npos; k++) {
        size_t l = strlen(p->pos[k]);
        if (k)
            *w++ = ' ';
        memcpy(w, p->pos[k], l);
        w += l;
    }
    *w = '\0';
    return s;
}

/* Tokenizes one whole text (TEXT, FILE or stdin) into b. */
static int run_whole(tok_tokenizer *t, const tokenize_opts *o, const opt_parsed *p, wbuf *b)
{
    textin in = {0};
    char *args = NULL;
    const char *what = "the text", *text;
    size_t len;
    if (p->npos) {
        if (!(args = joined(p))) {
            cli_error("out of memory");
            return -1;
        }
        text = args, len = strlen(args);
    } else {
        const char *path = o->file && strcmp(o->file, "-") != 0 ? o->file : NULL;
        if (textin_open(&in, path, "text file"))
            return -1;
        what = path ? path : "standard input";
        text = in.data, len = in.len;
    }
    unsigned flags = (o->lossy ? TOK_LOSSY : 0) | (o->fmt == FMT_IDS ? TOK_NO_OFFSETS : 0);
    tok_ids r;
    g2e_err err;
    int rc = tok_encode(t, text, len, (tok_special)o->special, flags, &r, NULL, &err);
    if (rc) {
        cli_error("%s: %s", what, err.msg);
    } else {
        format(b, t, text, len, &r, o->fmt);
        if (r.n_replaced)
            cli_note("%zu invalid UTF-8 sequence%s replaced by U+FFFD", r.n_replaced,
                     r.n_replaced == 1 ? "" : "s");
        tok_ids_free(&r);
    }
    textin_close(&in);
    free(args);
    return rc ? -1 : 0;
}

/* Combinations of options and inputs; the format from -o's extension. Returns 0 or -1. */
static int check(tokenize_opts *o, opt_parsed *p)
{
    int dash = 0;
    for (int k = 0; k < p->npos; k++)
        dash |= strcmp(p->pos[k], "-") == 0;
    if (dash && p->npos == 1) { /* '-' alone: standard input */
        p->npos = 0;
        if (o->file)
            return opt_usage_error(&CMD, "give only one of TEXT, -f FILE or '-'");
        o->file = "-";
    }
    int sources = (p->npos > 0) + (o->file != NULL) + (dash && p->npos > 1);
    if (o->jsonl && sources)
        return opt_usage_error(&CMD, "--jsonl reads standard input: give no TEXT, -f or '-'");
    if (!o->jsonl && sources != 1)
        return opt_usage_error(&CMD, sources ? "give only one of TEXT, -f FILE or '-'"
                                             : "no input: give TEXT, -f FILE or '-'");
    if (o->keep_going && !o->jsonl)
        return opt_usage_error(&CMD, "--keep-going applies to --jsonl only");
    if (o->jsonl) {
        int f = 0;
        if (opt_given(&CMD, p, "--format"))
            return opt_usage_error(&CMD, "--jsonl writes JSON lines: leave out --format");
        return out_pick_format(&CMD, o->out, JSONL_FORMATS, 0, &f);
    }
    int given = opt_given(&CMD, p, "--format");
    size_t ol = o->out ? strlen(o->out) : 0;
    if (given && o->fmt != FMT_JSON && ol > 4 && strcasecmp(o->out + ol - 4, ".txt") == 0)
        return 0; /* .txt holds either text format: --format ids -o ids.txt is no contradiction */
    return out_pick_format(&CMD, o->out, FORMATS, given, &o->fmt);
}

/* 1 if f is a pipe, a socket or a terminal (then --jsonl flushes every block). */
static int is_stream(FILE *f)
{
    struct stat st;
    int fd = f == stdout ? STDOUT_FILENO : fileno(f); /* stdout may be a cookie stream (out.c) */
    return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode));
}

/* --jsonl onto f. Returns 0, JSONL_STOPPED or -1 (a message printed). */
static int jsonl_to(tok_tokenizer *t, const tokenize_opts *o, FILE *f)
{
    jrun *j = calloc(1, sizeof *j);
    if (!j) {
        cli_error("out of memory");
        return -1;
    }
    /* each share's tokenizer runs alone (tok_worker's contract): t's own thread count goes
     * to 1 and the threads are the shares' */
    *j = (jrun){.t = t, .o = o, .f = f, .threads = tok_threads(t), .line_flush = is_stream(f)};
    tok_set_threads(t, 1);
    int rc = run_jsonl(j);
    size_t bad = j->bad;
    jrun_free(j);
    free(j);
    if (rc >= 0 && fflush(f)) {
        cli_error("cannot write the output: %s", strerror(errno));
        return -1;
    }
    if (!rc && bad) {
        cli_note("%zu bad line%s written as error objects", bad, bad == 1 ? "" : "s");
        rc = JSONL_STOPPED; /* exit status 1, output complete */
    }
    return rc;
}

/* One whole text onto f. Returns 0 or -1 (a message printed). */
static int whole_to(tok_tokenizer *t, const tokenize_opts *o, const opt_parsed *p, FILE *f)
{
    wbuf b = {.f = f};
    int rc = run_whole(t, o, p, &b);
    if (!rc && b.oom) {
        cli_error("out of memory formatting the output");
        rc = -1;
    }
    if (!rc)
        wb_flush(&b);
    free(b.p);
    if (!rc && b.werr) {
        cli_error("cannot write the output: %s", strerror(b.werr));
        rc = -1;
    }
    return rc;
}

int cmd_tokenize(int argc, char **argv)
{
    tokenize_opts o = {0};
    opt_parsed p;
    int r = opt_parse(&CMD, argc, argv, &o, &p);
    if (r || check(&o, &p)) {
        opt_free(&p);
        return r ? opt_exit(r) : EXIT_USAGE;
    }
    tok_tokenizer *t = NULL;
    out_file of = {0};
    g2e_err err;
    int rc = -1;
    if (tok_locate(o.dir, &t, &err)) {
        cli_error("%s", err.msg);
    } else if (out_open(&of, o.out, 0) == 0) {
        tok_set_threads(t, (unsigned)o.threads);
        id_text_vocab = tok_n_vocab(t);
        rc = o.jsonl ? jsonl_to(t, &o, of.f) : whole_to(t, &o, &p, of.f);
        /* a stopped --jsonl keeps the lines before the bad one, in a file too */
        if (rc >= 0 && out_commit(&of))
            rc = -1;
        else if (rc < 0)
            out_abort(&of);
    }
    tok_close(t);
    opt_free(&p);
    free(id_text);
    id_text = NULL;
    id_text_n = id_text_vocab = 0;
    return rc == 0 ? EXIT_OK : EXIT_ERR;
}
