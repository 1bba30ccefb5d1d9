/* SPDX-License-Identifier: MIT */
/* support.h — helpers shared by the test files: run the built program, temp paths, files. */
#ifndef G2E_TEST_SUPPORT_H
#define G2E_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* The result of running a program: exit status (or 128+signal), captured output. */
typedef struct run_result {
    int status;          /* exit status; 128 + signal number if killed by a signal */
    int signaled;        /* non-zero if it died of a signal */
    char *out;           /* stdout, NUL-terminated (owned: run_free) */
    size_t out_len;
    char *err;           /* stderr, NUL-terminated (owned: run_free) */
    size_t err_len;
} run_result;

/* A long test (a gigabyte stream, a server that drips, a long loop), declared as Test is:
 * `make test` leaves it out and `make test-long` runs it (tests/run.sh; .ci/run runs both).
 * Criterion calls it NAME__long, which is how the runner tells the two halves apart. */
#define LongTest(suite, name, ...) Test(suite, name##__long __VA_OPT__(,) __VA_ARGS__)

struct fixture_opts;
struct g2e_model;
/* Writes a fixture (tests/fixture.h) into a fresh temp dir named after tag and opens it with
 * model_open; aborts the test on failure. The caller closes the model. */
struct g2e_model *open_fixture_model(const struct fixture_opts *o, const char *tag);
/* The same through the library's door. */
struct gpt2embed_model *open_fixture_door(const struct fixture_opts *o, const char *tag);

struct eng;
/* The repository's tokenizer (tokenizer/) on the engine, its chunks `chunk` bytes (0: the
 * default, ENG_CHUNK); aborts the test on failure. The caller frees it (eng_free). */
struct eng *open_repo_eng(size_t chunk);

/* How long run_argv lets a command run before it kills it (60 s unless a test sets more,
 * such as the installation steps of test_api). */
extern int run_timeout_s;

/* Runs argv (argv[0] a path; NULL-terminated) with stdin fed from in/in_len (NULL: /dev/null),
 * env entries "NAME=value" set in the environment and "-NAME" removed from it,
 * in directory cwd (NULL: current). Kills it after run_timeout_s. Aborts the test on a system failure. */
run_result run_argv(char *const argv[], const char *in, size_t in_len,
                    char *const env[], const char *cwd);
/* The characters of s[0..n) as Python's bytes.decode("utf-8", errors="replace") makes them:
 * one per well-formed character and one per maximal ill-formed subpart (text_step's). */
size_t ref_chars(const char *s, size_t n);

/* Runs the built gpt2-embed with the arguments that follow (NULL-terminated). */
run_result run_g2e(const char *arg1, ...);
void run_free(run_result *r);

/* Where this binary's temporary files go: $G2E_TEST_TMPDIR (tests/run.sh gives each binary
 * its own, so binaries running at once never meet), which must lie under the build's tmp/;
 * else the build's tmp/ itself. Created if missing. */
const char *test_tmproot(void);
/* A fresh empty directory (mkdtemp) named after tag under test_tmproot() for this test
 * (caller frees the string). */
char *test_tmpdir(const char *tag);
/* Joins dir and name into a newly allocated path. */
char *path_join(const char *dir, const char *name);
/* Writes len bytes to path (replacing it); aborts the test on failure. */
void write_file(const char *path, const void *data, size_t len);
/* Reads a whole file (NULL if it cannot be opened); *len receives its size. */
char *read_file(const char *path, size_t *len);
/* A file that lives in memory (memfd_create), holding len bytes of data reps times over:
 * for the tests of texts over 1 GiB, which then need memory but no free disk. Its name,
 * "/dev/fd/N", opens it from this test and from the programs run_argv starts (they inherit
 * N). Caller frees the name; the file goes when the test's process ends. */
char *mem_file(const void *data, size_t len, int reps);

#endif
