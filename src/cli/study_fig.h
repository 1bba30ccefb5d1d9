/* SPDX-License-Identifier: MIT */
/* study_fig.h — the study commands' figures: figures.h's study_fig_* with study.h's names. */
#include "figures.h"
#include "study.h"
