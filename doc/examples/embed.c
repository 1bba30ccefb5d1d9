/* SPDX-License-Identifier: MIT */
/* embed.c — the smallest program on libgpt2embed: prints the first and last component of
 * GPT-2's input vector for each token of a text.
 *   cc embed.c $(pkg-config --cflags --libs gpt2embed) -o embed          (shared library)
 *   ./embed WEIGHTS.safetensors "The dog chased the cat"
 */
#include <gpt2embed.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s WEIGHTS.safetensors TEXT\n", argv[0]);
        return 2;
    }
    gpt2embed_error err;
    gpt2embed_model *m = NULL;
    gpt2embed_tokenizer *tk = NULL;
    uint32_t *ids = NULL;
    float *x = NULL;
    size_t T = 0;
    int rc = 1;
    gpt2embed_status s;
    if ((s = gpt2embed_model_open(&m, argv[1], NULL, &err)) ||
        (s = gpt2embed_tokenizer_open(&tk, NULL, &err)) ||
        (s = gpt2embed_tokenize(tk, argv[2], strlen(argv[2]), &ids, &T, &err))) {
        fprintf(stderr, "embed: %s (%s)\n", err.message, gpt2embed_strerror(s));
        goto done;
    }
    size_t C = gpt2embed_n_embd(m);
    x = malloc((T ? T : 1) * C * sizeof *x);
    if (!x) {
        fprintf(stderr, "embed: out of memory\n");
        goto done;
    }
    if ((s = gpt2embed_embed(m, ids, T, 0, x, &err))) {
        fprintf(stderr, "embed: %s (%s)\n", err.message, gpt2embed_strerror(s));
        goto done;
    }
    for (size_t t = 0; t < T; t++)
        printf("%zu %u %.9g %.9g\n", t, ids[t], (double)x[t * C], (double)x[t * C + C - 1]);
    rc = 0;
done:
    free(x);
    gpt2embed_free(ids);
    gpt2embed_tokenizer_close(tk);
    gpt2embed_model_close(m);
    return rc;
}
