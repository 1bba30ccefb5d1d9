/* SPDX-License-Identifier: MIT */
/* report_text.h — every string of the report page, in one place (N_()-marked for gettext;
 * macros rather than an array so that the compiler checks each format's conversions where it
 * is used). Strings with printf conversions say in a comment what they receive, in order; the
 * page HTML-escapes every string after formatting. */
#ifndef G2E_REPORT_TEXT_H
#define G2E_REPORT_TEXT_H

#ifndef N_
#define N_(s) s
#endif

#define T_TITLE N_("GPT-2's embedding stage on these weights")
/* version, weights path, model name, n_vocab, n_ctx, n_embd */
#define T_INTRO N_("Computed by gpt2-embed %s from %s (%s: n_vocab %zu, n_ctx %zu, n_embd %zu). " \
    "Every number is what the gpt2-embed commands print for these weights, and " \
    "every figure is drawn from them.")
#define T_CONTENTS N_("Contents")
/* the reason */
#define T_FAILED N_("Not available for these weights: %s")
#define T_FAILED_NOTE N_("(the message is on standard error)")
#define T_EX1_H N_("Exercise 1: the parameters of a position-embedding matrix")
#define T_EX1_GPT2 N_("GPT-2: 1024 positions x 768 dimensions")
#define T_EX1_BIG N_("4096 positions x 4096 dimensions")
#define T_EX1_WPE N_("this file's wpe (n_ctx x n_embd)")
#define T_EX1_WTE N_("this file's wte (n_vocab x n_embd)")
/* ratio */
#define T_EX1_SAYS N_("Learned positions cost one row per position: a 4096-token model 4096 wide " \
    "needs %.1f times GPT-2's position parameters. The context length is paid " \
    "for in parameters.")
#define T_EX2_H N_("Exercise 2: the effect of the position embedding")
#define T_EX2_SHAPE N_("shape of wpe")
#define T_EX2_COS01 N_("cos(wpe[0], wpe[1])")
/* far position */
#define T_EX2_COS0F N_("cos(wpe[0], wpe[%zu])")
#define T_EX2_CATID N_("token ID of \" cat\"")
#define T_EX2_CAT N_("cos(wte[cat] + wpe[0], wte[cat] + wpe[5])")
#define T_EX2_MEDIAN N_("median cosine of random token pairs (for reference)")
/* n_ctx, far position */
#define T_EX2_FARNOTE N_("This model has %zu positions, so position %zu stands in for 500.")
#define T_SCALE_H N_("Token vectors and position vectors: the scale")
#define T_SCALE_COL_WTE N_("wte (tokens)")
#define T_SCALE_COL_WPE N_("wpe (positions)")
#define T_SCALE_ROWS N_("rows")
#define T_SCALE_NORM N_("mean row norm")
#define T_SCALE_MIN N_("smallest row norm")
#define T_SCALE_MAX N_("largest row norm")
#define T_SCALE_ABS N_("mean |x|")
#define T_SCALE_STD N_("std of x")
#define T_SCALE_RATIO N_("mean token norm / mean position norm")
/* ratio */
#define T_SCALE_SAYS_EVEN N_("A token vector is on average %.2f times as long as a position vector: " \
    "the same order of magnitude, so neither drowns the other in the sum, " \
    "as the chapter says.")
#define T_SCALE_SAYS_UNEVEN N_("A token vector is on average %.2f times as long as a position vector: " \
    "one of the two dominates the sum in these weights, which is not the " \
    "balance the chapter describes.")
/* norm 0, its ratio to the median, median */
#define T_NORMS_SAYS N_("Position 0 has norm %.3f, %.2f times the median of the other positions " \
    "(%.3f).")
/* norm 0, when the median is 0 (no ratio) */
#define T_NORMS_SAYS_NO_MEDIAN N_("Position 0 has norm %.3f; at least half of the other positions are " \
    "zero vectors (their median norm is 0), so no ratio to the median is defined.")
/* cv before, split-1, cv after, split, n-1 */
#define T_NORMS_SPREAD N_("The norms spread by %.1f%% (std / mean) over positions 1..%zu and by " \
    "%.1f%% over positions %zu..%zu.")
#define T_ORDER_H N_("The order puzzle: 犬が猫を追いかけた / 猫が犬を追いかけた")
#define T_ORDER_INTRO N_("The two sentences hold the same tokens in a different order. Self-attention " \
    "without a mask sees its input rows as a set: without positions both sentences give the same " \
    "multiset of rows. GPT-2's attention is causal (a row sees the rows up to it), which tells " \
    "apart the rows whose prefixes differ; with x[t] = wte[id_t] + wpe[t] a token's row depends " \
    "on where it stands.")
#define T_ORDER_TOKENS N_("tokens")
#define T_ORDER_MULTISET N_("the same multiset of tokens")
#define T_ORDER_DIFFER N_("positions whose summed inputs differ")
#define T_ORDER_POS N_("position")
#define T_YES N_("yes")
#define T_NO N_("no")
#define T_LIMIT_H N_("The context limit on an English and a Japanese text")
/* n_ctx */
#define T_LIMIT_INTRO N_("wpe has %zu rows, so GPT-2 reads at most that many tokens. How much text " \
    "that is depends on the language:")
#define T_LIMIT_TEXT N_("text")
#define T_LIMIT_BYTES N_("bytes")
#define T_LIMIT_CHARS N_("characters")
#define T_LIMIT_TOKENS N_("tokens")
#define T_LIMIT_CPT N_("characters per token")
#define T_LIMIT_FITS N_("fits")
#define T_LIMIT_CAP N_("characters in n_ctx tokens at this rate")
/* ratio of token counts, Japanese tokens, English tokens */
#define T_LIMIT_SAYS N_("The Japanese text takes %.2f times as many tokens as the English one " \
    "(%zu against %zu): a context of the same length holds far less Japanese.")
/* the text's name, n_ctx, characters read, characters, their percentage */
#define T_LIMIT_CUT N_("%s does not fit: GPT-2 reads its first %zu tokens, which hold %zu of its %zu " \
    "characters (%.0f%%); the rest is cut off, or needs a second window.")
#define T_SIN_H N_("The sinusoidal encoding (the original Transformer)")
#define T_SIN_INTRO N_("PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), drawn as " \
    "the article draws it: 100 positions, d = 128, coolwarm on [-1, 1], " \
    "dimension 0 at the bottom.")
#define T_SIN_DOT N_("PE(0)·PE(k), d = 128")
/* the largest difference */
#define T_SIN_ROT N_("The article's second point: the encoding of pos + k is the encoding of pos " \
    "rotated, pair by pair (2i, 2i+1), by the angles ω_i·k, the same rotation whatever pos is, so a " \
    "distance is one fixed linear map that attention can learn. Checked here for pos < 100, " \
    "k < 50, d = 128: the largest difference is %.1e, rounding only.")
/* the largest difference */
#define T_SIN_ROT_FAILS N_("The article's second point, that the encoding of pos + k is that of pos " \
    "rotated by the angles ω_i·k, does not hold here: the largest difference is %.3g.")
#define T_SIN_SAYS N_("The dot product falls with the distance and never rises back to d/2 = 64: " \
    "near positions look alike, far ones less so.")
#define T_WPE_H N_("GPT-2's learned positions: wpe")
#define T_WPE_INTRO N_("wpe as a heatmap (x = position, y = dimension), the cosine similarity of " \
    "every pair of positions, and the mean similarity at each distance next to " \
    "the sinusoidal encoding of the same width.")
#define T_WPE_Q N_("colour range of the heatmap (99th percentile of |wpe|)")
#define T_WPE_DIST N_("distance d")
#define T_WPE_LEARNED N_("learned: mean cos(wpe[p], wpe[p+d])")
#define T_WPE_SIN N_("sinusoidal: mean cos(PE(p), PE(p+d))")
#define T_WPE_SAYS N_("Both curves start at 1 (a position is itself) and fall with the distance; " \
    "the learned one is whatever training made of it.")
#define T_PCA_H N_("The shape of wpe: principal components")
/* rows, columns, last position */
#define T_PCA_INTRO N_("Principal components of the centred %zu x %zu matrix of positions " \
    "1..%zu of wpe, in double with LAPACK (position 0, an outlier as the norms above show, is " \
    "left out: it would take a component of its own; `gpt2-embed pca` keeps it unless --skip 1). " \
    "Published analyses of GPT-2 small find its positions close to a helix: the first " \
    "components are smooth waves of the position, and PC1 against PC2 traces a curve ordered " \
    "by position.")
#define T_PCA_COMP N_("component")
#define T_PCA_VAR N_("variance")
#define T_PCA_RATIO N_("share")
#define T_PCA_CUM N_("cumulative")
/* percent of PC1+PC2, percent of first 4 */
#define T_PCA_SAYS N_("PC1 and PC2 explain %.1f%% of wpe's variance, the first four %.1f%%.")
#define T_ROPE_H N_("RoPE: rotary positions, next to the two additive schemes")
#define T_ROPE_INTRO N_("Newer models rotate each pair (2i, 2i+1) of a query or key by pos·θ_i, " \
    "θ_i = 10000^(-2i/d), instead of adding a position vector.")
/* d, pairs, max position, deviation */
#define T_ROPE_CHECK N_("Relative check (d = %zu, %zu random unit q, k, positions up to %llu): the " \
    "largest |⟨R(m)q, R(n)k⟩ − ⟨R(m−n)q, k⟩| is %.3g.")
#define T_ROPE_DOT N_("mean ⟨R(0)q, R(k)q⟩ of unit q")
#define T_ROPE_SAYS N_("The score depends on the offset m − n alone, up to rounding: the model " \
    "sees how far apart two tokens are, not where they are.")
/* version */
#define T_FOOTER N_("Written by gpt2-embed %s. The page loads nothing from the network.")

#endif
