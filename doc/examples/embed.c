/* embed.c — the smallest program on libgpt2embed: prints the first components of GPT-2's
 * input vectors for a text.
 *   cc embed.c $(pkg-config --cflags --libs --static gpt2embed) -o embed
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
    char err[512];
    gpt2embed_model *m = NULL;
    gpt2embed_tokenizer *tk = NULL;
    uint32_t *ids = NULL;
    float *x = NULL;
    size_t T = 0;
    int rc = 1;
    if (gpt2embed_model_open(&m, argv[1], NULL, err, sizeof err) ||
        gpt2embed_tokenizer_open(&tk, NULL, err, sizeof err) ||
        gpt2embed_tokenize(tk, argv[2], strlen(argv[2]), &ids, &T, err, sizeof err)) {
        fprintf(stderr, "embed: %s\n", err);
        goto done;
    }
    size_t C = gpt2embed_n_embd(m);
    x = malloc((T ? T : 1) * C * sizeof *x);
    if (!x || gpt2embed_embed(m, ids, T, 0, x, err, sizeof err)) {
        fprintf(stderr, "embed: %s\n", x ? err : "out of memory");
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
