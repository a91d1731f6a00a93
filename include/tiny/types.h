/* types.h - fixed-width integer types and the few kernel typedefs.
 *
 * Only compiler-provided freestanding headers are used, so the same
 * definitions serve the i386 kernel and the host build of mm/.
 */
#ifndef TINY_TYPES_H
#define TINY_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef unsigned int gfp_t;	/* allocation flags, see <tiny/gfp.h> */

#endif /* TINY_TYPES_H */
