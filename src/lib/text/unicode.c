/* SPDX-License-Identifier: MIT */
/* unicode.c — class names; the tables themselves live in the generated unicode_table.c. */
#include "unicode.h"

const char *uni_class_name(int cls)
{
    switch (cls) {
    case UNI_L: return "L";
    case UNI_N: return "N";
    case UNI_W: return "W";
    default: return "O";
    }
}
