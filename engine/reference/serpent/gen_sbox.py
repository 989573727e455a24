#!/usr/bin/env python3
"""Regenerate serpent_sbox.h: bitsliced circuits for the Serpent S-boxes.

Our own small circuit generator. Each S-box (and inverse) output bit is a
16-entry truth table over the input bits x0..x3 (x0 = bit 0 of the nibble).
Outputs are built one after another, reusing every gate already built: a
target that equals (or complements) an existing gate costs nothing (or one
NOT); one that is AND/OR/XOR/AND-NOT of two existing gates costs one gate;
otherwise it is split on the next input variable x (Shannon/Davio step:
f = f0 ^ (x & (f0 ^ f1)), or x & f1, f0 & ~x, x | f0, f0 ^ x when a cofactor
is constant) and the cofactors are built recursively. Each output is also
tried as one gate on an existing node and a residual built that way (XOR, or
AND/OR/AND-NOT where the existing node allows it), keeping the cheaper. All 24
variable orders and 24 output orders are tried; the circuit with the fewest
gates is kept (AND-NOT counts as one gate: one instruction on vectors).
Runs in about a minute. The S-box tables are those of the Serpent proposal (Anderson, Biham, Knudsen, 1998).
Usage: python3 gen_sbox.py > serpent_sbox.h
"""
import copy
import itertools

S = [
    [3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12],
    [15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4],
    [8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2],
    [0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14],
    [1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13],
    [15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1],
    [7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0],
    [1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6],
]
INV = [[s.index(i) for i in range(16)] for s in S]
FULL=0xffff
X=[sum(1<<t for t in range(16) if t>>i&1) for i in range(4)]
def cof(f,i,v):
    # cofactor of f wrt var i = v, returned as full tt independent of var i
    r=0
    for t in range(16):
        tt = (t & ~(1<<i)) | (v<<i)
        if f>>tt&1: r|=1<<t
    return r
class Circ:
    def __init__(s,pairs):
        s.memo={X[i]:('x',i) for i in range(4)}; s.gates=[]; s.pairs=pairs
    def node(s,op,a,b,tt):
        if tt in s.memo: return tt
        s.gates.append((tt,op,a,b)); s.memo[tt]=(op,a,b); return tt
    def get(s,f,order,idx):
        if f in s.memo: return f
        if (f^FULL) in s.memo: return s.node('not',f^FULL,None,f)
        if s.pairs:
            ks=list(s.memo)
            for a in ks:
                for b in ks:
                    if a<b:
                        if a&b==f: return s.node('and',a,b,f)
                        if a|b==f: return s.node('or',a,b,f)
                        if a^b==f: return s.node('xor',a,b,f)
                    if a!=b and a&~b&FULL==f: return s.node('andn',a,b,f)
        if f==0 or f==FULL: raise Exception('const')
        while True:
            i=order[idx]; f0=cof(f,i,0); f1=cof(f,i,1)
            if f0!=f1: break
            idx+=1
        x=X[i]; d=f0^f1
        if f0==0: b=s.get(f1,order,idx+1); return s.node('and',x,b,f)
        if f1==0: b=s.get(f0,order,idx+1); return s.node('andn',b,x,f)
        if f1==FULL: b=s.get(f0,order,idx+1); return s.node('or',x,b,f)
        if f0==FULL: b=s.get(f1,order,idx+1); xn=s.node('not',x,None,x^FULL); return s.node('or',xn,b,f)
        if d==FULL: b=s.get(f0,order,idx+1); return s.node('xor',x,b,f)
        a=s.get(f0,order,idx+1); dd=s.get(d,order,idx+1); t=s.node('and',x,dd,x&dd); return s.node('xor',a,t,f)
def cost(c):
    # one instruction per gate: AND-NOT is one too (SSE2/AVX2 pandn, BMI1 andn), and
    # the multi-block path, where the S-boxes' cost matters, runs on vectors
    return len(c.gates)
def build(c,f,vo):
    """The cheapest circuit for output f on top of circuit c: f built directly, or
    f = n op h for an already built node n and a residual h built directly. Where
    the op leaves h free on some inputs (AND, OR, AND-NOT), one completion is tried."""
    best=copy.deepcopy(c); best.get(f,vo,0)
    for n in list(c.memo):
        alts=[('xor',n,f^n)]                                   # f = n ^ h
        if f&~n&FULL==0: alts.append(('and',n,f|(~n&FULL)))    # f = n & h
        if n&~f&FULL==0: alts.append(('or',n,f&~n&FULL))       # f = n | h
        if f&~n&FULL==0: alts.append(('andn',n,n&~f&FULL))     # f = n & ~h
        for op,n_,h in alts:
            if h in (0,FULL): continue
            d=copy.deepcopy(c)
            try: d.get(h,vo,0)
            except Exception: continue
            d.node(op,n_,h,f)
            if cost(d)<cost(best): best=d
    return best
def best_circ(box,pairs):
    outs=[sum(((box[t]>>o)&1)<<t for t in range(16)) for o in range(4)]
    best=None
    for vo in itertools.permutations(range(4)):
        for oo in itertools.permutations(range(4)):
            c=Circ(pairs)
            try:
                for o in oo:
                    f=outs[o]
                    if f in (0,FULL): raise Exception
                    c=build(c,f,vo)
            except Exception: continue
            if best is None or cost(c)<cost(best[0]): best=(c,outs)
    return best


def emit(name, box):
    c, outs = best_circ(box, pairs=True)
    names = {X[i]: "x%d" % i for i in range(4)}
    lines = []
    for n, (tt, op, a, b) in enumerate(c.gates):
        v = "t%d" % n
        if op == "not":
            e = "~%s" % names[a]
        elif op == "andn":
            e = "%s & ~%s" % (names[a], names[b])
        else:
            e = "%s %s %s" % (names[a], {"and": "&", "or": "|", "xor": "^"}[op], names[b])
        lines.append("uint32_t %s = %s;" % (v, e))
        names[tt] = v
    lines.append("x0 = %s; x1 = %s; x2 = %s; x3 = %s;" % tuple(names[outs[o]] for o in range(4)))
    body = "".join("    %s \\\n" % s for s in lines)
    return "#define SP_%s(x0, x1, x2, x3) do { \\\n%s} while (0) /* %d gates */\n" % (name, body, cost(c))


def main():
    print("/* serpent_sbox.h: bitsliced Serpent S-boxes S0..S7 (SP_Sn) and inverses\n"
          " * (SP_In), as in-place macros on four 32-bit words x0..x3 (x0 = least\n"
          " * significant bit of each nibble). Generated by gen_sbox.py in this folder\n"
          " * from the S-box tables of the Serpent proposal; do not edit by hand. */\n"
          "#ifndef SERPENT_SBOX_H\n#define SERPENT_SBOX_H\n")
    for i in range(8):
        print(emit("S%d" % i, S[i]))
        print(emit("I%d" % i, INV[i]))
    print("#endif")


if __name__ == "__main__":
    main()
