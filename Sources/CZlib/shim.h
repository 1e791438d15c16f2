// zlib, for SluiceTesting's MockServer (gzip-encoded routes). Debian: zlib1g-dev.
#ifndef SLUICE_CZLIB_SHIM_H
#define SLUICE_CZLIB_SHIM_H

#include <zlib.h>

#endif
