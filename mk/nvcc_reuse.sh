#!/bin/sh
# nvcc_reuse.sh PLAIN BUILD NVCC [ARG...]: runs `NVCC ARG...`, or copies its
# output from the plain build PLAIN when that build made it with the same
# command.  The sanitizer builds use it (NVCC_REUSE=build, the Makefile;
# .ci/run): nvcc's programs, objects and device code take no sanitizer flag
# (ALL_NVCCFLAGS has no SANFLAGS), so each sanitizer's build makes the plain
# build's bytes again, some 100 nvcc runs, most of a variant's compile time.
# The output is copied only when
#  - it is `-o BUILD/PATH` and PLAIN/PATH exists;
#  - PLAIN/PATH is newer than every file named on the command line outside
#    BUILD (the sources);
#  - every file named under BUILD (an input nvcc or the assembler made) is
#    byte for byte PLAIN's;
#  - no argument names BUILD by its absolute path (an rpath would be baked
#    into the output: -Xlinker -rpath=$(abspath ...)).
# Otherwise nvcc runs.  A -L directory under BUILD (the sanitized sim's
# libraries) changes nothing in the output: a program records the library's
# name, and finds the variant's at run time as it always did.
plain=$1 build=$2
shift 2
out=""
abs=$(cd "$build" 2>/dev/null && pwd) || abs=""
reuse=yes
prev=""
for a in "$@"; do
    if [ "$prev" = -o ]; then
        out=$a
    else
        case $a in
            "$build"/*) if [ -f "$a" ]; then cmp -s "$a" "$plain/${a#"$build"/}" || reuse=no; fi ;;
            *) [ -n "$abs" ] && case $a in *"$abs"*) reuse=no ;; esac ;;
        esac
    fi
    prev=$a
done
case $out in "$build"/*) from=$plain/${out#"$build"/} ;; *) reuse=no ;; esac
if [ $reuse = yes ] && [ -f "$from" ]; then
    prev=""
    for a in "$@"; do
        case $prev:$a in
            -o:*|*:"$build"/*) ;;
            *) if [ -f "$a" ] && [ "$a" -nt "$from" ]; then reuse=no; fi ;;
        esac
        prev=$a
    done
    [ $reuse = yes ] && exec cp "$from" "$out"
fi
exec "$@"
