/* Test instrument (LD_PRELOAD) for test_pin_memory.py: reports every block the host frees while it still holds
 * the bytes given in hex in $PROBE_NEEDLE_HEX, i.e. every copy of the PIN that went back to the allocator without
 * being zeroed. Hex, so the host's own copies of its environment are no copies of the PIN. Active only in the
 * webauthn-bridge executable (the pinentry it starts inherits the environment). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void __libc_free(void *);

/* Kept masked, so the probe's own copy is not a copy of the PIN to the memory scan. */
#define MASK 0x5a
static unsigned char needle[128];
static size_t needle_length;
static int report = -1;

__attribute__((constructor)) static void probe_start(void) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    const char *name = strrchr(exe, '/');
    const char *hex = getenv("PROBE_NEEDLE_HEX"), *path = getenv("PROBE_REPORT");
    if (!name || strcmp(name + 1, "webauthn-bridge") != 0 || !hex || !path) return;
    size_t length = strlen(hex) / 2;
    if (length == 0 || length > sizeof needle) return;
    for (size_t i = 0; i < length; i++) {
        char byte[3] = {hex[2 * i], hex[2 * i + 1], 0};
        needle[i] = (unsigned char)strtol(byte, NULL, 16) ^ MASK;
    }
    needle_length = length;
    report = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    write(report, "probe active\n", 13);
}

static int holds_needle(const unsigned char *bytes, size_t size) {
    for (size_t start = 0; start + needle_length <= size; start++) {
        size_t i = 0;
        while (i < needle_length && (bytes[start + i] ^ MASK) == needle[i]) i++;
        if (i == needle_length) return 1;
    }
    return 0;
}

void free(void *block) {
    if (block && needle_length && report >= 0 && holds_needle(block, malloc_usable_size(block)))
        write(report, "freed a block holding the secret\n", 33);
    __libc_free(block);
}
