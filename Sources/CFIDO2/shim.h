#include <fido.h>
#include <fido/es256.h>
#include <fido/rs256.h>
#include <fido/eddsa.h>
#include <fido/credman.h>
#include <fido/config.h>
#include <fido/bio.h>
