/* SPDX-License-Identifier: MIT */
/* report_text.c — the built-in texts of the report's context-limit section (the
 * page's strings are in report_text.h). */
#include "report.h"


const char report_builtin_en[] =
    "Position embeddings tell the model where each token stands. GPT-2 learned one vector for "
    "each of its 1024 positions, so it cannot read more than 1024 tokens at once. The same "
    "sentence in Japanese usually needs more tokens than in English, because many Japanese "
    "characters are not tokens of their own and fall apart into two or three byte-level pieces. "
    "A text that fits easily in English may therefore be cut short in Japanese.";

const char report_builtin_ja[] =
    "位置埋め込みは、各トークンが文のどこにあるかをモデルに伝えます。GPT-2は1024個の位置の"
    "それぞれに一つのベクトルを学習したため、一度に1024トークンより多くを読むことはできません。"
    "同じ内容の文でも、日本語は英語より多くのトークンを必要とすることがふつうです。日本語の"
    "多くの文字はそれだけで一つのトークンにならず、二つか三つのバイト単位の断片に分かれるから"
    "です。そのため、英語なら余裕で収まる文章が、日本語では途中で切れてしまうことがあります。";

