/* random.h - a small deterministic pseudo-random generator (xorshift32),
 * for stress tests and benchmarks that must repeat exactly from a seed. */
#ifndef TINY_RANDOM_H
#define TINY_RANDOM_H

#include <tiny/types.h>

struct rnd_state {
	u32 s;
};

static inline void prandom_seed(struct rnd_state *r, u32 seed)
{
	r->s = seed ? seed : 0x9e3779b9u;
}

static inline u32 prandom_u32(struct rnd_state *r)
{
	u32 x = r->s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	r->s = x;
	return x;
}

/* A value in [0, n), n > 0. */
static inline u32 prandom_below(struct rnd_state *r, u32 n)
{
	return (u32)(((u64)prandom_u32(r) * n) >> 32);
}

#endif /* TINY_RANDOM_H */
