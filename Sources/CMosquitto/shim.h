#ifndef KURONEKO_CMOSQUITTO_SHIM_H
#define KURONEKO_CMOSQUITTO_SHIM_H

// libmosquitto, the MQTT client library of the broker's authors (Debian's libmosquitto-dev, 2.0).
#include <mosquitto.h>

#endif
