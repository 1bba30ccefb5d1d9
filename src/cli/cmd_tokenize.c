/* cmd_tokenize.c — `gpt2-embed tokenize`: text -> GPT-2 token IDs (tiktoken-exact).
 *
 * The whole output is built in memory and written at the end, so that an error (bad
 * UTF-8, a refused special token, a malformed --jsonl line) never leaves a partial output.
 * Deliberately left out: streaming of inputs larger than memory.
 */
#include "cli.h"
#include "json.h"
#include "out.h"
#include "tokenizer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f,
            "usage: gpt2-embed tokenize [OPTIONS] [TEXT... | -f FILE | -]\n"
            "GPT-2 token IDs of TEXT (several TEXT arguments are joined with single spaces),\n"
            "of FILE, or of standard input ('-'), exactly as tiktoken's gpt2 encoding.\n\n"
            "  --format table|ids|json  table (default): position, ID, piece (space shown as ␣,\n"
            "                           controls and bytes that are not UTF-8 as \\n, \\xHH...),\n"
            "                           byte range in the input; ids: decimal IDs separated by\n"
            "                           single spaces, one line; json: one object\n"
            "  --jsonl                  batch: one {\"text\": \"...\"} per stdin line, one\n"
            "                           {\"ids\": [...]} per output line, in order\n"
            "  --special token|text|error   <|endoftext|> in the input: ID 50256 (default), ordinary\n"
            "                           text (tiktoken's encode_ordinary), or an error\n"
            "  --lossy                  replace invalid UTF-8 with U+FFFD (as Python's errors=\"replace\")\n"
            "                           instead of failing; byte offsets still refer to the input\n"
            "  --tokenizer DIR          vocab.json + merges.txt (or encoder.json + vocab.bpe) in DIR;\n"
            "                           else $GPT2_EMBED_TOKENIZER, tokenizer/ beside the program,\n"
            "                           the installed data, or the copy compiled in\n"
            "  -f FILE                  read the text from FILE\n"
            "  -h, --help               this help\n"
            "Put -- before a TEXT that starts with a dash.\n");
}

/* ------------------------------------------------------------ a growable output buffer */

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *b, const void *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + n + 1) {
            if (c > SIZE_MAX / 2) {
                b->oom = 1;
                return;
            }
            c *= 2;
        }
        char *q = realloc(b->p, c);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

static void sb_u64(sbuf *b, uint64_t v)
{
    char tmp[24];
    int k = 24;
    do {
        tmp[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sb_put(b, tmp + k, (size_t)(24 - k));
}

/* A piece for the table, made visible the way every command shows pieces
 * (out_piece_visible: space ␣, newline ↵, tab →, other controls and partial UTF-8 \xNN). */
static void sb_visible(sbuf *b, const uint8_t *p, size_t n)
{
    char *v = out_piece_visible((const char *)p, n);
    if (v) {
        sb_str(b, v);
        free(v);
    } else {
        b->oom = 1;
    }
}

/* A JSON string of the piece's bytes, escaped as every JSON string of the program is
 * (json.h: a cut character becomes \ufffd, as Python's errors="replace"). */
static void sb_json_str(sbuf *b, const uint8_t *p, size_t n)
{
    char *lit = json_string_alloc((const char *)p, n);
    if (lit) {
        sb_str(b, lit);
        free(lit);
    } else {
        b->oom = 1;
    }
}

/* ------------------------------------------------------------ input */

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

static void put_utf8(sbuf *b, unsigned cp)
{
    uint8_t u[4];
    size_t k;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp;
        k = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xC0 | cp >> 6);
        u[1] = (uint8_t)(0x80 | (cp & 0x3F));
        k = 2;
    } else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xE0 | cp >> 12);
        u[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp & 0x3F));
        k = 3;
    } else {
        u[0] = (uint8_t)(0xF0 | cp >> 18);
        u[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        u[3] = (uint8_t)(0x80 | (cp & 0x3F));
        k = 4;
    }
    sb_put(b, u, k);
}

/* Parses a JSON string at s[*i] into out (raw bytes, \u escapes as UTF-8; a lone
 * surrogate becomes U+FFFD only if lossy). Returns NULL or an error text. */
static const char *json_string(const char *s, size_t n, size_t *i, sbuf *out, int lossy)
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
            while (r < n && s[r] != '"' && s[r] != '\\' && (unsigned char)s[r] >= 0x20)
                r++;
            sb_put(out, s + j, r - j);
            j = r;
            continue;
        }
        if (j + 1 >= n)
            return "bad escape";
        char e = s[j + 1];
        j += 2;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char rep[] = "\"\\/\b\f\n\r\t";
            sb_put(out, &rep[simple - "\"\\/bfnrt"], 1);
            continue;
        }
        if (e != 'u')
            return "bad escape";
        unsigned cp;
        if (hex4(s, n, j, &cp))
            return "bad \\u escape";
        j += 4;
        if (cp >= 0xD800 && cp < 0xDC00) {
            unsigned lo;
            if (j + 6 <= n && s[j] == '\\' && s[j + 1] == 'u' && !hex4(s, n, j + 2, &lo) && lo >= 0xDC00 &&
                lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                j += 6;
            } else if (lossy) {
                cp = 0xFFFD;
            } else {
                return "lone surrogate \\u escape (use --lossy to replace it)";
            }
        } else if (cp >= 0xDC00 && cp < 0xE000) {
            if (!lossy)
                return "lone surrogate \\u escape (use --lossy to replace it)";
            cp = 0xFFFD;
        }
        put_utf8(out, cp);
    }
    *i = j + 1;
    return NULL;
}

/* Skips any JSON value (for keys other than "text"). */
static const char *json_skip(const char *s, size_t n, size_t *i, int depth)
{
    if (depth > 64)
        return "nesting too deep";
    *i = skip_ws(s, n, *i);
    if (*i >= n)
        return "expected a value";
    char c = s[*i];
    if (c == '"') {
        sbuf tmp = {0};
        const char *e = json_string(s, n, i, &tmp, 1);
        free(tmp.p);
        return e;
    }
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        *i = skip_ws(s, n, *i + 1);
        if (*i < n && s[*i] == close) {
            (*i)++;
            return NULL;
        }
        for (;;) {
            if (c == '{') {
                sbuf tmp = {0};
                const char *e = json_string(s, n, i, &tmp, 1);
                free(tmp.p);
                if (e)
                    return e;
                *i = skip_ws(s, n, *i);
                if (*i >= n || s[*i] != ':')
                    return "expected ':'";
                (*i)++;
            }
            const char *e = json_skip(s, n, i, depth + 1);
            if (e)
                return e;
            *i = skip_ws(s, n, *i);
            if (*i < n && s[*i] == ',') {
                *i = skip_ws(s, n, *i + 1);
                continue;
            }
            if (*i < n && s[*i] == close) {
                (*i)++;
                return NULL;
            }
            return "expected ',' or a closing bracket";
        }
    }
    size_t j = *i;
    while (j < n && (strchr("+-.eE", s[j]) || (s[j] >= '0' && s[j] <= '9') || (s[j] >= 'a' && s[j] <= 'z')))
        j++;
    if (j == *i)
        return "expected a value";
    *i = j;
    return NULL;
}

/* The "text" member of a one-line JSON object into text. */
static const char *jsonl_text(const char *s, size_t n, sbuf *text, int lossy)
{
    size_t i = skip_ws(s, n, 0);
    int found = 0;
    if (i >= n || s[i] != '{')
        return "expected a JSON object {\"text\": \"...\"}";
    i = skip_ws(s, n, i + 1);
    if (i < n && s[i] == '}')
        i++;
    else
        for (;;) {
            sbuf key = {0};
            const char *e = json_string(s, n, &i, &key, 1);
            int is_text = !e && key.n == 4 && memcmp(key.p, "text", 4) == 0;
            free(key.p);
            if (e)
                return e;
            i = skip_ws(s, n, i);
            if (i >= n || s[i] != ':')
                return "expected ':'";
            i = skip_ws(s, n, i + 1);
            if (is_text) {
                if (found)
                    return "\"text\" given twice";
                found = 1;
                if ((e = json_string(s, n, &i, text, lossy)))
                    return e;
            } else if ((e = json_skip(s, n, &i, 0))) {
                return e;
            }
            i = skip_ws(s, n, i);
            if (i < n && s[i] == ',') {
                i = skip_ws(s, n, i + 1);
                continue;
            }
            if (i < n && s[i] == '}') {
                i++;
                break;
            }
            return "expected ',' or '}'";
        }
    if (skip_ws(s, n, i) != n)
        return "trailing characters after the object";
    if (!found)
        return "no \"text\" member";
    return NULL;
}

/* ------------------------------------------------------------ output formats */

enum { FMT_TABLE, FMT_IDS, FMT_JSON };

static void out_ids_array(sbuf *b, const tok_ids *r)
{
    sb_str(b, "[");
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            sb_str(b, ",");
        sb_u64(b, r->ids[i]);
    }
    sb_str(b, "]");
}

static void format(sbuf *b, const tok_tokenizer *t, const tok_ids *r, int fmt)
{
    if (fmt == FMT_IDS) {
        for (size_t i = 0; i < r->n; i++) {
            if (i)
                sb_str(b, " ");
            sb_u64(b, r->ids[i]);
        }
        sb_str(b, "\n");
        return;
    }
    if (fmt == FMT_JSON) {
        sb_str(b, "{\"n_tokens\":");
        sb_u64(b, r->n);
        sb_str(b, ",\"ids\":");
        out_ids_array(b, r);
        sb_str(b, ",\"offsets\":[");
        for (size_t i = 0; i < r->n; i++) {
            sb_str(b, i ? ",[" : "[");
            sb_u64(b, r->offsets[i]);
            sb_str(b, ",");
            sb_u64(b, r->offsets[i + 1]);
            sb_str(b, "]");
        }
        sb_str(b, "],\"pieces\":[");
        for (size_t i = 0; i < r->n; i++) {
            const uint8_t *p;
            size_t len;
            tok_piece(t, r->ids[i], &p, &len, NULL);
            if (i)
                sb_str(b, ",");
            sb_json_str(b, p, len);
        }
        sb_str(b, "]}\n");
        return;
    }
    sb_str(b, "  pos      id  piece                   bytes\n");
    for (size_t i = 0; i < r->n; i++) {
        char head[64];
        snprintf(head, sizeof head, "%5zu  %6u  ", i, r->ids[i]);
        sb_str(b, head);
        const uint8_t *p;
        size_t len;
        tok_piece(t, r->ids[i], &p, &len, NULL);
        size_t before = b->n;
        sb_visible(b, p, len);
        /* pad to 22 display columns, counting UTF-8 lead bytes as one column each */
        size_t cols = 0;
        for (size_t k = before; k < b->n && !b->oom; k++)
            cols += ((uint8_t)b->p[k] & 0xC0) != 0x80;
        for (; cols < 22; cols++)
            sb_str(b, " ");
        sb_str(b, "  ");
        sb_u64(b, r->offsets[i]);
        sb_str(b, "..");
        sb_u64(b, r->offsets[i + 1]);
        sb_str(b, "\n");
    }
    if (!r->n)
        sb_str(b, "(no tokens)\n");
}

static int write_all(const sbuf *b)
{
    if (b->n && fwrite(b->p, 1, b->n, stdout) != b->n)
        return -1;
    return fflush(stdout);
}

/* ------------------------------------------------------------ the command */

int cmd_tokenize(int argc, char **argv)
{
    int fmt = FMT_TABLE, jsonl = 0, lossy = 0, rc = EXIT_ERR;
    tok_special special = TOK_SPECIAL_TOKEN;
    const char *file = NULL, *dir = NULL;
    int first_text = 0, n_text = 0, dashdash = 0, stdin_dash = 0;
    char *input = NULL, *joined = NULL;
    size_t in_len = 0;
    tok_tokenizer *t = NULL;
    sbuf out = {0};
    g2e_err err;
    g2e_clear(&err);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!dashdash && a[0] == '-' && a[1]) {
            if (strcmp(a, "--") == 0) {
                dashdash = 1;
            } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
                help(stdout);
                return EXIT_OK;
            } else if (strcmp(a, "--jsonl") == 0) {
                jsonl = 1;
            } else if (strcmp(a, "--lossy") == 0) {
                lossy = 1;
            } else if (strcmp(a, "--format") == 0 || strcmp(a, "--special") == 0 ||
                       strcmp(a, "--tokenizer") == 0 || strcmp(a, "-f") == 0) {
                if (i + 1 >= argc) {
                    cli_error("%s needs a value (see 'gpt2-embed tokenize --help')", a);
                    return EXIT_USAGE;
                }
                const char *v = argv[++i];
                if (strcmp(a, "--format") == 0) {
                    if (strcmp(v, "table") == 0) fmt = FMT_TABLE;
                    else if (strcmp(v, "ids") == 0) fmt = FMT_IDS;
                    else if (strcmp(v, "json") == 0) fmt = FMT_JSON;
                    else {
                        cli_error("--format must be table, ids or json, not '%s'", v);
                        return EXIT_USAGE;
                    }
                } else if (strcmp(a, "--special") == 0) {
                    if (strcmp(v, "token") == 0) special = TOK_SPECIAL_TOKEN;
                    else if (strcmp(v, "text") == 0) special = TOK_SPECIAL_TEXT;
                    else if (strcmp(v, "error") == 0) special = TOK_SPECIAL_ERROR;
                    else {
                        cli_error("--special must be token, text or error, not '%s'", v);
                        return EXIT_USAGE;
                    }
                } else if (strcmp(a, "--tokenizer") == 0) {
                    dir = v;
                } else {
                    file = v;
                }
            } else {
                cli_error("unknown option '%s' (see 'gpt2-embed tokenize --help')", a);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "-") == 0 && !dashdash) {
            stdin_dash = 1;
        } else {
            if (!n_text)
                first_text = i;
            else if (first_text + n_text != i) {
                cli_error("the TEXT arguments must follow each other");
                return EXIT_USAGE;
            }
            n_text++;
        }
    }
    int sources = (n_text > 0) + (file != NULL) + stdin_dash;
    if (jsonl && sources) {
        cli_error("--jsonl reads standard input: give no TEXT, -f or '-'");
        return EXIT_USAGE;
    }
    if (!jsonl && sources != 1) {
        cli_error(sources ? "give only one of TEXT, -f FILE or '-'"
                          : "no input: give TEXT, -f FILE or '-' (see 'gpt2-embed tokenize --help')");
        return EXIT_USAGE;
    }

    if (tok_locate(dir, &t, &err)) {
        cli_error("%s", err.msg);
        goto done;
    }
    unsigned flags = (lossy ? TOK_LOSSY : 0) | (fmt == FMT_IDS || jsonl ? TOK_NO_OFFSETS : 0);

    if (jsonl) {
        input = cli_read_stream(stdin, &in_len);
        if (!input) {
            cli_error("cannot read standard input: %s", strerror(errno));
            goto done;
        }
        size_t pos = 0, line = 0;
        while (pos < in_len) {
            size_t e = pos;
            while (e < in_len && input[e] != '\n')
                e++;
            line++;
            size_t a = skip_ws(input, e, pos);
            if (a < e) {
                sbuf text = {0};
                const char *je = jsonl_text(input + pos, e - pos, &text, lossy);
                if (je || text.oom) {
                    cli_error("standard input line %zu: %s", line, je ? je : "out of memory");
                    free(text.p);
                    goto done;
                }
                tok_ids r;
                int erc = tok_encode(t, text.p ? text.p : "", text.n, special, flags, &r, NULL, &err);
                free(text.p);
                if (erc) {
                    cli_error("standard input line %zu: %s", line, err.msg);
                    goto done;
                }
                sb_str(&out, "{\"ids\":");
                out_ids_array(&out, &r);
                sb_str(&out, "}\n");
                tok_ids_free(&r);
            }
            pos = e + 1;
        }
    } else {
        const char *what = "the text";
        const char *text;
        if (n_text) {
            if (n_text == 1) {
                text = argv[first_text];
                in_len = strlen(text);
            } else {
                size_t total = 0;
                for (int k = 0; k < n_text; k++)
                    total += strlen(argv[first_text + k]) + 1;
                joined = malloc(total);
                if (!joined) {
                    cli_error("out of memory");
                    goto done;
                }
                size_t w = 0;
                for (int k = 0; k < n_text; k++) {
                    size_t l = strlen(argv[first_text + k]);
                    if (k)
                        joined[w++] = ' ';
                    memcpy(joined + w, argv[first_text + k], l);
                    w += l;
                }
                text = joined;
                in_len = w;
            }
        } else {
            what = file ? file : "standard input";
            input = file ? cli_read_file(file, "text file", &in_len) : cli_read_stream(stdin, &in_len);
            if (!input) {
                if (!file)
                    cli_error("cannot read standard input: %s", strerror(errno));
                goto done;
            }
            text = input;
        }
        tok_ids r;
        if (tok_encode(t, text, in_len, special, flags, &r, NULL, &err)) {
            cli_error("%s: %s", what, err.msg);
            goto done;
        }
        format(&out, t, &r, fmt);
        if (r.n_replaced)
            cli_note("%zu invalid UTF-8 sequence%s replaced by U+FFFD", r.n_replaced,
                     r.n_replaced == 1 ? "" : "s");
        tok_ids_free(&r);
    }
    if (out.oom) {
        cli_error("out of memory formatting the output");
        goto done;
    }
    if (write_all(&out)) {
        cli_error("cannot write the output: %s", strerror(errno));
        goto done;
    }
    rc = EXIT_OK;
done:
    free(out.p);
    free(input);
    free(joined);
    tok_close(t);
    return rc;
}
