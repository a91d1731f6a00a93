/* gfp.h - "get free pages" flags that say how an allocation may be served.
 *
 * No allocation in this kernel ever sleeps, so GFP_KERNEL and GFP_ATOMIC
 * are both safe everywhere; GFP_ATOMIC additionally marks the caller as
 * possibly running in interrupt context, where it may dip into the small
 * reserve of pages that GFP_KERNEL leaves alone.
 */
#ifndef TINY_GFP_H
#define TINY_GFP_H

#include <tiny/types.h>

#define __GFP_WAIT	0x01u	/* the caller could sleep (process context) */
#define __GFP_HIGH	0x02u	/* may use the emergency reserve */
#define __GFP_ZERO	0x04u	/* return zeroed memory */
#define __GFP_NOWARN	0x08u	/* do not log allocation failures */

#define GFP_ATOMIC	(__GFP_HIGH)
#define GFP_KERNEL	(__GFP_WAIT)

#endif /* TINY_GFP_H */
