// core_clock: the clock a busy core really runs at, for converting host measurements (loopback_rr) into
// the model's cycles. No PMU is needed: a chain of dependent 64-bit multiplies retires one per 3 cycles
// on every x86 core since Nehalem (imul r64,r64 latency 3; Agner Fog's instruction tables), so cycles =
// 3 x multiplies. (A chain of add-immediates does not work: Golden Cove and later fold them at rename.)
// Prints "<GHz> GHz".
#include <stdint.h>
#include <stdio.h>
#include <time.h>

int main(void) {
    const uint64_t n = 500000000ull;
    uint64_t x = 3;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t i = 0; i < n; i++)
        __asm__ volatile("imul %0,%0\n\timul %0,%0\n\timul %0,%0\n\timul %0,%0" : "+r"(x));
    clock_gettime(CLOCK_MONOTONIC, &b);
    const double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("%.3f GHz\n", 12.0 * (double)n / s / 1e9);
    return 0;
}
