/* SPDX-License-Identifier: MIT */
/* tokcount.h — how much of a text fits GPT-2's context (`gpt2-embed count`'s numbers).
 *
 * For a text: bytes, characters (code points; in lossy input each maximal ill-formed
 * subpart is one), tokens (tiktoken-exact; <|endoftext|> the special token unless a flag
 * below says it is text or an error), how many
 * non-overlapping ctx-token windows it takes, and, when it does not fit, where the ctx-th
 * token ends: byte offset, characters wholly before it, line and column (1-based, in
 * characters) of the first character not wholly inside the context, whether the cut falls
 * inside a character (byte-level BPE can end a token there: common in Japanese), and a
 * snippet with '|' at the cut (textpos.h). Optionally the characters by token cost
 * (charcost.h). Strict input without per-character costs or a special-token flag is
 * counted on the engine's threads by eng_count, the rest by eng_encode (with offsets).
 *
 * Status codes: tokenizer.h's (TOK_E_UTF8 for invalid input without TOKCOUNT_LOSSY),
 * embed.h's for ctx, G2E_ENOMEM. Deliberately left out: names of inputs, tables and JSON
 * (the program's, over the public gpt2embed_count_ex), overlapping windows (embed.h).
 */
#ifndef G2E_TOKCOUNT_H
#define G2E_TOKCOUNT_H

#include "charcost.h"
#include "textpos.h"
#include "engine.h"


#define TOKCOUNT_LOSSY 1u    /* replace ill-formed UTF-8 with U+FFFD instead of failing */
#define TOKCOUNT_PER_CHAR 2u /* also fill cc / n_cc */
#define TOKCOUNT_SPECIAL_TEXT 4u  /* <|endoftext|> is text (tok_encode's TOK_SPECIAL_TEXT) */
#define TOKCOUNT_SPECIAL_ERROR 8u /* <|endoftext|> is refused (TOK_SPECIAL_ERROR: TOK_E_SPECIAL) */
#define TOKCOUNT_WORDS 16u        /* also count the English words (else r->words is zero) */

typedef struct tokcount {
    size_t bytes, chars, tokens, windows, replaced;
    text_words words;             /* TOKCOUNT_WORDS: English words (text.h; lossy: of the input as it is) */
    int fits;                     /* tokens <= ctx */
    /* the cut, when !fits */
    size_t cut_byte, cut_chars;   /* byte offset; characters wholly before it */
    size_t line, col;             /* of the first character not wholly inside */
    int inside;                   /* the cut falls inside a character */
    char snippet[TEXTPOS_SNIPPET_MAX];
    charcost_row *cc;             /* TOKCOUNT_PER_CHAR: (n_cc) rows, costliest first (owned) */
    size_t n_cc;
    size_t bad_offset;            /* on TOK_E_UTF8 / TOK_E_SPECIAL: the byte, else SIZE_MAX */
    int sys_errno;                /* tokcount_stream's failed read: its errno */
} tokcount;

/* Counts text[0..len) against a context of ctx tokens into *r (tokcount_free releases it;
 * on error *r holds nothing but bad_offset: the byte of TOK_E_UTF8 / TOK_E_SPECIAL, or
 * SIZE_MAX). */
int tokcount_text(eng *e, unsigned threads, const char *text, size_t len, size_t ctx, unsigned flags, tokcount *r,
                  g2e_err *err);
void tokcount_free(tokcount *r);

/* The same, strict (flags: TOKCOUNT_WORDS or 0), for the text read through read(user, ...) to its end as it
 * comes (eng_stream): memory is the stream's and the text up to a little past the ctx-th
 * token (for the cut's line, column and snippet), whatever the input's length. Errors:
 * tokcount_text's, ENG_E_READ and ENG_CANCELED (r->sys_errno), ENG_E_LONG (engine.h). */
int tokcount_stream(eng *e, unsigned threads, eng_read_fn read, void *user, size_t ctx, unsigned flags,
                    tokcount *r, g2e_err *err);

#endif
