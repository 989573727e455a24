/* cb_at_stack_offset(): run a timed batch with its stack at a chosen place in its page.
 * stack.h says why. One file for every runner that can call C: the engine links it, and
 * the Python runner's build.sh compiles it into libcb_stack.so for ctypes. */
#include "stack.h"

#include <alloca.h>
#include <stdint.h>

static int stack_at = -1;

int cb_stack_at(void) { return stack_at; }

__attribute__((noinline)) void cb_at_stack_offset(unsigned offset, void (*fn)(void *), void *arg) {
    volatile char here = 0;
    const uintptr_t pos = (uintptr_t)&here & 4095u;
    /* The stack grows down: moving down by (pos - offset) mod 4096 lands on offset. Whole
     * 16-byte steps keep the ABI's alignment; alloca adds its own constant on top. */
    const uintptr_t pad = ((pos - offset) & 4095u) & ~(uintptr_t)15;
    char *gap = alloca(pad + 16);
    __asm__ volatile("" : : "r"(gap) : "memory"); /* the gap is used: it stays */
    stack_at = (int)((uintptr_t)gap & 4095u);
    fn(arg);
    __asm__ volatile("" : : "r"(gap) : "memory");
    (void)here;
}
