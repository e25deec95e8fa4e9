#ifndef KURONEKO_CPOSTGRES_SHIM_H
#define KURONEKO_CPOSTGRES_SHIM_H

#include <libpq-fe.h>

#endif
