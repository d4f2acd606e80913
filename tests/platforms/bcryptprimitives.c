/* ProcessPrng, which Rust's standard library takes its random bytes from
 * on Windows 10 and later, for wine releases whose bcryptprimitives.dll is
 * missing (Debian 12's wine 8.0): the same bytes from RtlGenRandom
 * (advapi32's SystemFunction036). Only tests/platforms/windows.sh uses it,
 * put beside the program it runs under wine; Windows has its own. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
