#include "stack.h"

#include <alloca.h>
#include <cstdint>

namespace cb {

__attribute__((noinline)) void at_stack_offset(unsigned offset, void (*fn)(void*), void* arg) {
    volatile char here = 0;
    const uintptr_t pos = reinterpret_cast<uintptr_t>(&here) & 4095u;
    // The stack grows down: moving down by (pos - offset) mod 4096 lands on offset. Whole
    // 16-byte steps keep the ABI's alignment; alloca adds its own constant on top.
    const uintptr_t pad = ((pos - offset) & 4095u) & ~uintptr_t(15);
    char* gap = static_cast<char*>(alloca(pad + 16));
    __asm__ volatile("" : : "r"(gap) : "memory");  // the gap is used: it stays
    fn(arg);
    __asm__ volatile("" : : "r"(gap) : "memory");
    (void)here;
}

}  // namespace cb
