/* Code shared by a sim library's device kernels (compiled by nvcc into the
 * library's image) and their host twins (compiled by the C compiler into
 * the library): SIMLIB_HD marks a function both compile, so the image's
 * kernel and the twin that does its work on the sim are one source. */
#ifndef SIM_LIBS_SIMLIB_HD_H
#define SIM_LIBS_SIMLIB_HD_H
#ifdef __CUDACC__
#define SIMLIB_HD static __host__ __device__ inline
#else
#define SIMLIB_HD static inline
#endif
#endif
