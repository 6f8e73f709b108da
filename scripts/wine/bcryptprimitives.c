/* Wine 8 lacks bcryptprimitives.dll, whose ProcessPrng Rust's std calls for random bytes:
   this stand-in, for running tests under wine only, asks advapi32's RtlGenRandom. */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
