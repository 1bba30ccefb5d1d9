/* SPDX-License-Identifier: MIT */
/* test_engine.c — the engine's parts (engine.h): contexts that never make a call wait, the
 * CPU a member's thread starts on and the whole set it then holds, stretches that hand every
 * item to exactly one member (a member's own from its front first), the queue's order, the
 * chunker's cuts (where tok_pretok_cut allows, covering the text) and the reader's ends.
 * The jobs' results are tested against one-thread tokenization in test_tokenizer.c and
 * test_tok_stream.c. */
#define _GNU_SOURCE
#include "engine.h"
#include "support.h"
#include "tok_pretok.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- contexts ---- */

Test(engine, a_context_is_always_given_never_waited_for)
{
    eng *e = open_repo_eng(0);
    tok_tokenizer *held[G2E_THREADS_MAX + 3];
    for (unsigned k = 0; k < G2E_THREADS_MAX + 3; k++) {
        held[k] = eng_take(e);
        cr_assert(held[k] != NULL, "context %u", k);
        for (unsigned j = 0; j < k; j++)
            cr_assert_neq(held[k], held[j], "context %u given twice", k);
    }
    cr_expect_eq(held[0], eng_tables(e), "the first is the tokenizer itself");
    tok_ids r;
    g2e_err err;
    cr_assert_eq(tok_encode(held[G2E_THREADS_MAX + 2], "a spare works", 13, TOK_SPECIAL_TEXT, 0, &r, NULL, &err), 0);
    cr_expect_eq(r.n, 3);
    tok_ids_free(&r);
    for (unsigned k = 0; k < G2E_THREADS_MAX + 3; k++)
        eng_give(e, held[k]); /* (kept ones back to the idle list, spares closed: ASan sees a leak otherwise) */
    cr_expect_eq(eng_take(e), held[G2E_THREADS_MAX - 1], "the last kept one given back is taken first");
    eng_free(e);
}

/* ---- the crew ---- */

static cpu_set_t set_of(const int *cpus, int n)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    for (int i = 0; i < n; i++)
        CPU_SET(cpus[i], &s);
    return s;
}

Test(engine, a_members_thread_starts_on_another_allowed_cpu_in_turn)
{
    cpu_set_t s = set_of((int[]){0, 1}, 2);
    cr_expect_eq(eng_start_cpu(&s, 0, 0), 1);
    cr_expect_eq(eng_start_cpu(&s, 1, 0), 0);
    cr_expect_eq(eng_start_cpu(&s, 1, 5), 0);
    s = set_of((int[]){2, 5, 7, 11}, 4);
    cr_expect_eq(eng_start_cpu(&s, 5, 0), 7); /* after me, round robin, never me */
    cr_expect_eq(eng_start_cpu(&s, 5, 1), 11);
    cr_expect_eq(eng_start_cpu(&s, 5, 2), 2);
    cr_expect_eq(eng_start_cpu(&s, 5, 3), 7);
    cr_expect_eq(eng_start_cpu(&s, 3, 0), 5); /* the caller on a CPU outside the set: all four */
    cr_expect_eq(eng_start_cpu(&s, 3, 3), 2);
    cr_expect_eq(eng_start_cpu(&s, 3, 4), 5);
    s = set_of((int[]){4}, 1);
    cr_expect_eq(eng_start_cpu(&s, 4, 0), -1); /* no other CPU */
    cr_expect_eq(eng_start_cpu(&s, 0, 0), 4);
    CPU_ZERO(&s);
    cr_expect_eq(eng_start_cpu(&s, 0, 0), -1);
}

/* What each member saw: its thread, its allowed CPUs, the items it took in order. */
#define MEMBERS 4
#define ITEMS 200000u
typedef struct seen {
    pthread_t by[MEMBERS];
    cpu_set_t mask[MEMBERS];
    int mask_rc[MEMBERS], ran[MEMBERS];
    _Atomic unsigned char *taken; /* (ITEMS,) times taken */
    size_t m;
    size_t own_taken[MEMBERS], own_last[MEMBERS];
    int own_in_order[MEMBERS];
} seen;

static void note(void *job, size_t k, eng_member *w)
{
    seen *v = job;
    unsigned me = w->k;
    if (!v->ran[me]) {
        v->ran[me] = 1;
        v->by[me] = pthread_self();
        v->mask_rc[me] = pthread_getaffinity_np(pthread_self(), sizeof v->mask[me], &v->mask[me]);
        v->own_in_order[me] = 1;
    }
    atomic_fetch_add(&v->taken[k], 1);
    size_t lo = v->m * me / MEMBERS, hi = v->m * (me + 1) / MEMBERS;
    if (k >= lo && k < hi && v->own_taken[me]++ < 100) { /* its first items: its own, in order */
        v->own_in_order[me] &= v->own_taken[me] == 1 ? k == lo : k == v->own_last[me] + 1;
        v->own_last[me] = k;
    }
}

/* Runs m items on MEMBERS members; returns how many members other than 0 took any (a
 * member's whole stretch may be taken by the others before its thread starts). */
static unsigned run_each(eng *e, size_t m, seen *v, const cpu_set_t *want)
{
    memset(v, 0, sizeof *v);
    v->m = m;
    v->taken = calloc(m ? m : 1, sizeof *v->taken);
    cr_assert_eq(eng_each(e, MEMBERS, m, v, note), m >= MEMBERS ? MEMBERS : m ? m : 1);
    size_t bad = 0;
    for (size_t k = 0; k < m; k++)
        bad += atomic_load(&v->taken[k]) != 1;
    cr_assert_eq(bad, 0, "%zu items not taken exactly once", bad);
    unsigned others = 0;
    for (unsigned i = 0; i < MEMBERS; i++) {
        if (!v->ran[i])
            continue;
        others += i > 0;
        cr_expect(v->own_in_order[i], "member %u took its own stretch out of order", i);
        cr_expect(v->mask_rc[i] == 0 && CPU_EQUAL(&v->mask[i], want), "member %u: allowed on %d CPUs, its maker on %d",
                  i, CPU_COUNT(&v->mask[i]), CPU_COUNT(want));
        cr_expect_eq(pthread_equal(v->by[i], pthread_self()) != 0, i == 0, "member %u ran in the %s thread", i,
                     i ? "calling" : "wrong");
    }
    free(v->taken);
    return others;
}

Test(engine, stretches_give_every_item_once_on_threads_with_the_makers_whole_set, .timeout = 60)
{
    eng *e = open_repo_eng(0);
    cpu_set_t all;
    cr_assert_eq(sched_getaffinity(0, sizeof all, &all), 0);
    seen v;
    unsigned others = 0;
    for (int round = 0; round < 20; round++)
        others += run_each(e, ITEMS, &v, &all);
    cr_expect_gt(others, 0, "no member but the calling thread ever took an item");
    run_each(e, 0, &v, &all);
    run_each(e, 3, &v, &all);
    /* one allowed CPU: plain threads, still one run per item */
    int cpu = sched_getcpu();
    cr_assert(cpu >= 0);
    cpu_set_t one = set_of((int[]){cpu}, 1);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    run_each(e, ITEMS, &v, &one);
    sched_setaffinity(0, sizeof all, &all);
    eng_free(e);
}

/* One member takes its stretch from the front, then the back of the stretch with most left
 * (with one member: every item in order). */
static void order_note(void *job, size_t k, eng_member *w)
{
    size_t *got = job;
    (void)w;
    got[got[0]++ + 1] = k;
}

Test(engine, one_member_takes_every_item_in_order)
{
    eng *e = open_repo_eng(0);
    size_t got[12] = {0};
    cr_assert_eq(eng_each(e, 1, 10, got, order_note), 1);
    cr_assert_eq(got[0], 10);
    for (size_t i = 0; i < 10; i++)
        cr_expect_eq(got[i + 1], i);
    eng_free(e);
}

/* ---- the queue ---- */

typedef struct qjob {
    size_t m, handed;
    int in_order;
    _Atomic int working, most, reused;
} qjob;

typedef struct qslot {
    size_t item;
} qslot;

static int q_take(eng_queue *q, size_t k)
{
    qjob *j = q->job;
    if (k == j->m)
        return 1; /* the end: the queue learns the count from take */
    ((qslot *)eng_slot(q, k))->item = k;
    return 0;
}

static void q_work(eng_queue *q, size_t k, eng_member *w)
{
    qjob *j = q->job;
    (void)w;
    int now = atomic_fetch_add(&j->working, 1) + 1;
    for (int most = atomic_load(&j->most); now > most && !atomic_compare_exchange_weak(&j->most, &most, now);)
        ;
    for (volatile int spin = 0; spin < 2000; spin++)
        ;
    if (((qslot *)eng_slot(q, k))->item != k)
        atomic_store(&j->reused, 1); /* (no assertion outside the test's thread) */
    atomic_fetch_sub(&j->working, 1);
}

static int q_hand(eng_queue *q, size_t k)
{
    qjob *j = q->job;
    j->in_order &= k == j->handed++;
    return 0;
}

Test(engine, the_queue_hands_items_on_in_order_and_stops_at_a_failure, .timeout = 60)
{
    eng *e = open_repo_eng(0);
    for (unsigned th = 1; th <= 4; th++) {
        qjob j = {.m = 5000, .in_order = 1};
        eng_queue q = {.slot_size = sizeof(qslot), .take = q_take, .work = q_work, .hand = q_hand, .job = &j};
        cr_assert_eq(eng_run(e, &q, th, SIZE_MAX), 0);
        cr_expect_eq(q.nslot, th > 1 ? th * ENG_SLOTS : 1);
        cr_expect(j.in_order && j.handed == j.m, "%u threads: handed %zu in order %d", th, j.handed, j.in_order);
        cr_expect_leq(atomic_load(&j.most), (int)th);
        cr_expect_eq(atomic_load(&j.reused), 0, "%u threads: a slot was reused while its item was worked on", th);
        free(q.slot);
    }
    eng_free(e);
}

/* ---- chunks ---- */

Test(engine, cuts_are_safe_cover_the_text_and_taper)
{
    size_t n = 3 << 20;
    char *s = malloc(n);
    static const char unit[] = "The cat sat. \xE7\x8A\xAC\xE3\x81\x8C\n";
    for (size_t i = 0; i < n; i++)
        s[i] = unit[i % (sizeof unit - 1)];
    for (unsigned th = 1; th <= 4; th++) {
        size_t m;
        size_t *cut = eng_cuts(s, n, ENG_CHUNK, th, &m);
        cr_assert(cut && m > 1);
        cr_expect_eq(cut[0], 0);
        cr_expect_eq(cut[m], n);
        for (size_t k = 1; k < m; k++) {
            cr_expect_gt(cut[k], cut[k - 1]);
            cr_expect_eq(tok_pretok_cut((const uint8_t *)s, n, cut[k]), cut[k], "cut %zu at %zu is no safe cut", k,
                         cut[k]);
            cr_expect_geq(cut[k] - cut[k - 1], th > 1 ? ENG_CHUNK_LAST : ENG_CHUNK, "chunk %zu", k);
        }
        if (th > 1)
            cr_expect_lt(cut[m - 1] - cut[m - 2], ENG_CHUNK, "%u threads: the last chunks are smaller", th);
        free(cut);
    }
    size_t m;
    size_t *cut = eng_cuts("ab", 2, ENG_CHUNK, 2, &m);
    cr_expect(cut && m == 1 && cut[0] == 0 && cut[1] == 2);
    free(cut);
    free(s);
}

/* ---- the reader ---- */

typedef struct script {
    int calls, fail_errno;
    size_t give;
} script;

static ssize_t scripted(void *user, char *buf, size_t cap)
{
    script *s = user;
    s->calls++;
    if (s->fail_errno) {
        errno = s->fail_errno;
        return -1;
    }
    size_t k = s->give < cap ? s->give : cap;
    memset(buf, 'a', k);
    return (ssize_t)k;
}

Test(engine, a_failed_read_ends_the_input_and_a_full_buffer_is_too_long)
{
    static const struct { int err, rc; } fails[] = {{EIO, ENG_E_READ}, {EINTR, ENG_E_READ}, {ECANCELED, ENG_CANCELED}};
    for (size_t i = 0; i < 3; i++) {
        script s = {.fail_errno = fails[i].err};
        eng_reader r = {.read = scripted, .user = &s, .cap = 16, .buf = malloc(16)};
        cr_expect_eq(eng_reader_more(&r, 64), fails[i].rc);
        cr_expect(r.eof && r.sys_errno == fails[i].err && s.calls == 1);
        free(r.buf);
    }
    script s = {.give = 1000};
    eng_reader r = {.read = scripted, .user = &s, .cap = 16, .buf = malloc(16)};
    int rc;
    while (!(rc = eng_reader_more(&r, 64)))
        ;
    cr_expect_eq(rc, ENG_E_LONG);
    cr_expect(r.cap == 64 && r.have == 64);
    free(r.buf);
}
