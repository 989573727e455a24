/* cb_at_stack_offset(offset, fn): calls fn() with the C stack moved down so that it sits
 * at `offset` (0..4095, in 16-byte steps) within its 4096-byte page, up to a rotation
 * that is the same in every process (this frame's size and ctypes' own frames).
 *
 * The Python runner runs each timed batch through it when the bench request asks for a
 * stack_offset (docs/protocol.md, "bench"). Address randomisation gives every process one
 * random 16-byte stack placement for its life, and where a library's stack blocks fall
 * against its buffers changes its speed (engine/src/stack.h); the libraries this runner
 * calls run on the C stack below the interpreter, so moving the stack under the
 * interpreter's frame that runs the batch moves theirs. Built by build.sh. */
#include <alloca.h>
#include <stdint.h>

static int stack_at = -1;

/* Where the last placed call's frames began within their page (the bottom of the gap). */
int cb_stack_at(void) { return stack_at; }

__attribute__((noinline)) void cb_at_stack_offset(unsigned offset, void (*fn)(void)) {
    volatile char here = 0;
    uintptr_t pos = (uintptr_t)&here & 4095u;
    uintptr_t pad = ((pos - offset) & 4095u) & ~(uintptr_t)15;
    char *gap = alloca(pad + 16);
    __asm__ volatile("" : : "r"(gap) : "memory"); /* the gap is used: it stays */
    stack_at = (int)((uintptr_t)gap & 4095u);
    fn();
    __asm__ volatile("" : : "r"(gap) : "memory");
    (void)here;
}
