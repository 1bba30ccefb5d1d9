/* SPDX-License-Identifier: MIT */
/* describe.c — a safetensors file and its GPT-2 model as JSON (see describe.h). */
#include "describe.h"

#include "json.h"

int st_describe_json(FILE *f, const char *path, const st_file *st, const g2e_model *m, const char *model_err)
{
    json_w w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "file"), json_cstr(&w, path);
    json_key(&w, "file_size"), json_uint(&w, st->data_start + st->data_len);
    json_key(&w, "header_len"), json_uint(&w, st->header_len);
    json_key(&w, "data_start"), json_uint(&w, st->data_start);
    json_key(&w, "data_len"), json_uint(&w, st->data_len);
    json_key(&w, "metadata");
    json_begin_object(&w);
    for (size_t i = 0; i < st->n_meta; i++)
        json_key(&w, st->meta[i].key), json_cstr(&w, st->meta[i].value);
    json_end_object(&w);
    json_key(&w, "tensors");
    json_begin_array(&w);
    for (size_t i = 0; i < st->n_tensors; i++) {
        const st_tensor *t = &st->tensors[i];
        json_begin_object(&w);
        json_key(&w, "name"), json_cstr(&w, t->name);
        json_key(&w, "dtype"), json_cstr(&w, st_dtype_name(t->dtype));
        json_key(&w, "shape");
        json_begin_array(&w);
        for (int d = 0; d < t->ndim; d++)
            json_uint(&w, t->shape[d]);
        json_end_array(&w);
        json_key(&w, "bytes"), json_uint(&w, t->end - t->begin);
        json_key(&w, "offset"), json_uint(&w, t->begin);
        json_key(&w, "data_offsets");
        json_begin_array(&w);
        json_uint(&w, t->begin), json_uint(&w, t->end);
        json_end_array(&w);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "model");
    if (m) {
        json_begin_object(&w);
        json_key(&w, "size"), json_cstr(&w, m->size_name);
        json_key(&w, "n_vocab"), json_uint(&w, m->n_vocab);
        json_key(&w, "n_ctx"), json_uint(&w, m->n_ctx);
        json_key(&w, "n_embd"), json_uint(&w, m->n_embd);
        json_key(&w, "n_layer"), json_uint(&w, m->n_layer);
        json_key(&w, "prefix"), json_cstr(&w, m->prefixed ? "transformer." : "");
        json_key(&w, "wte"), json_cstr(&w, m->wte->name);
        json_key(&w, "wpe"), json_cstr(&w, m->wpe->name);
        json_key(&w, "dtype"), json_cstr(&w, st_dtype_name(m->wte->dtype));
        json_end_object(&w);
    } else {
        json_null(&w);
        json_key(&w, "model_error"), json_cstr(&w, model_err);
    }
    json_end_object(&w);
    fputc('\n', f);
    return json_done(&w) ? 0 : -1;
}
