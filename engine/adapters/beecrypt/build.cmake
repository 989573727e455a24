# BeeCrypt 4.2.1: no Debian release packages it any more, so it is built here from its
# published source tarball (shared/thirdparty/SOURCES.md), with its own configure, into
# this build tree as a static library. The build runs while CMake configures, once: a
# stamp names what it was built from, and a later configure with the same tarball,
# compiler and options finds it and builds nothing. A tarball that is missing, not the
# published one, or that does not build leaves the adapter unavailable with the reason.
#
# Where the tarball is: $CIPHERBENCH_THIRDPARTY (a folder), else the nearest
# shared/thirdparty beside the checkout or beside a folder above it (../shared for a
# checkout, ../../shared for a worktree one level down), as the shared vectors are found.
set(CB_BEECRYPT_TARBALL beecrypt-4.2.1.tar.gz)
# sha256 of the published 4.2.1 release (its configure.ac: AC_INIT([beecrypt],[4.2.1])).
set(CB_BEECRYPT_SHA256 1c4c098c9d0dd6e6ff2d56ba6691f155053252baf7c5da019e649a17d6fd801e)
set(CB_BEECRYPT_VERSION 4.2.1)
# What no current toolchain needs: the C++, Java and Python bindings, OpenMP (only its
# multi-precision code uses it), the shared library. -Wno-error=implicit-function-declaration:
# blockmode.c calls swapu32 without including endianness.h; a warning in GCC 12, an error
# from GCC 14 and Clang 16 on. It goes in CPPFLAGS because a CFLAGS of our own would switch
# configure to its "expert mode" and replace the flags BeeCrypt picks for the CPU (-O2 on
# x86-64): the library is built as its own build system builds it.
set(CB_BEECRYPT_CONFIGURE --disable-shared --enable-static --without-cplusplus --without-java
    --without-python --disable-openmp --disable-dependency-tracking
    CPPFLAGS=-Wno-error=implicit-function-declaration)

function(cb_beecrypt_tarball out_path out_reason)
  if(DEFINED ENV{CIPHERBENCH_THIRDPARTY})
    set(dir "$ENV{CIPHERBENCH_THIRDPARTY}")
    set(where "$CIPHERBENCH_THIRDPARTY (${dir})")
  else()
    get_filename_component(up "${CB_REPO}" REALPATH)
    set(dir "")
    while(NOT dir)
      if(IS_DIRECTORY "${up}/shared/thirdparty")
        set(dir "${up}/shared/thirdparty")
      else()
        get_filename_component(next "${up}" DIRECTORY)
        if(next STREQUAL up)
          break()
        endif()
        set(up "${next}")
      endif()
    endwhile()
    if(NOT dir)
      set(${out_reason} "${CB_BEECRYPT_TARBALL} not found: no shared/thirdparty beside the checkout or any folder above it (set CIPHERBENCH_THIRDPARTY to the folder holding it)" PARENT_SCOPE)
      return()
    endif()
    set(where "${dir}")
  endif()
  if(NOT EXISTS "${dir}/${CB_BEECRYPT_TARBALL}")
    set(${out_reason} "${CB_BEECRYPT_TARBALL} not found in ${where}" PARENT_SCOPE)
    return()
  endif()
  file(SHA256 "${dir}/${CB_BEECRYPT_TARBALL}" sum)
  if(NOT sum STREQUAL CB_BEECRYPT_SHA256)
    set(${out_reason} "${dir}/${CB_BEECRYPT_TARBALL} is not the published 4.2.1 release (sha256 ${sum})" PARENT_SCOPE)
    return()
  endif()
  set(${out_path} "${dir}/${CB_BEECRYPT_TARBALL}" PARENT_SCOPE)
endfunction()

# One step of the build: the command after LABEL run in DIR, its output appended to the
# log. Sets CB_BEECRYPT_FAILED to LABEL in the caller when it fails; skips once one failed.
function(cb_beecrypt_step log dir label)
  if(CB_BEECRYPT_FAILED)
    return()
  endif()
  string(REPLACE ";" " " shown "${ARGN}")
  file(APPEND "${log}" "\n$ ${shown}\n")
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${dir}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  file(APPEND "${log}" "${out}")
  if(NOT rc EQUAL 0)
    set(CB_BEECRYPT_FAILED "${label}" PARENT_SCOPE)
  endif()
endfunction()

# Extract, configure, make the library alone (libbeecrypt.la: no tests, no docs), install
# it and its headers under ${root}/install. Sets out_reason when a step fails.
function(cb_beecrypt_build tarball root out_reason)
  file(REMOVE_RECURSE "${root}")
  file(MAKE_DIRECTORY "${root}/build")
  set(log "${root}/build.log")
  include(ProcessorCount)
  ProcessorCount(jobs)
  if(jobs EQUAL 0)
    set(jobs 1)
  endif()
  message(STATUS "adapter beecrypt: building BeeCrypt ${CB_BEECRYPT_VERSION} from ${tarball} (once; log: ${log})")
  set(CB_BEECRYPT_FAILED "")
  set(b ${root}/build)
  cb_beecrypt_step(${log} ${root} "extracting" ${CMAKE_COMMAND} -E tar xzf ${tarball})
  cb_beecrypt_step(${log} ${b} "configure" ${root}/beecrypt-${CB_BEECRYPT_VERSION}/configure
                   --prefix=${root}/install CC=${CMAKE_C_COMPILER} CXX=${CMAKE_CXX_COMPILER} ${CB_BEECRYPT_CONFIGURE})
  cb_beecrypt_step(${log} ${b} "make libbeecrypt.la" ${CB_MAKE} -j${jobs} libbeecrypt.la)
  cb_beecrypt_step(${log} ${b} "make install" ${CB_MAKE} install-libLTLIBRARIES)
  cb_beecrypt_step(${log} ${b} "make install (headers)" ${CB_MAKE} -C include install)
  if(CB_BEECRYPT_FAILED)
    set(${out_reason} "building BeeCrypt ${CB_BEECRYPT_VERSION} failed at ${CB_BEECRYPT_FAILED} (see ${log}, and remove ${root} to build it again)" PARENT_SCOPE)
  endif()
endfunction()

cb_beecrypt_tarball(CB_BEECRYPT_SOURCE CB_BEECRYPT_MISSING)
find_program(CB_M4 m4)
find_program(CB_MAKE NAMES gmake make)
if(NOT CB_BEECRYPT_MISSING AND (NOT CB_M4 OR NOT CB_MAKE))
  # configure writes the x86-64 multi-precision assembly (gas/mpopt.x86_64.m4) with m4;
  # without it that file is empty, and CTR's counter increment (mpaddw) is missing.
  set(CB_BEECRYPT_MISSING "building BeeCrypt needs m4 and make; install m4 and make")
endif()
set(CB_BEECRYPT_ROOT ${CMAKE_CURRENT_BINARY_DIR}/beecrypt)
set(CB_BEECRYPT_LIB ${CB_BEECRYPT_ROOT}/install/lib/libbeecrypt.a)
set(CB_BEECRYPT_STAMP ${CB_BEECRYPT_ROOT}/built-from.txt)
if(NOT CB_BEECRYPT_MISSING)
  # What the build depends on: a change to any of it builds the library again. The stamp
  # holds that and, after a failed build, its reason: the same inputs fail again at once
  # rather than at every configure.
  file(SHA256 ${CMAKE_CURRENT_LIST_FILE} recipe)
  set(want "${CB_BEECRYPT_SHA256} ${CMAKE_C_COMPILER} ${CMAKE_C_COMPILER_VERSION} ${recipe}")
  set(have "")
  if(EXISTS ${CB_BEECRYPT_STAMP})
    file(STRINGS ${CB_BEECRYPT_STAMP} have)
  endif()
  list(LENGTH have n)
  if(n EQUAL 2 AND "${have}" MATCHES "^([^;]*);(.*)$" AND CMAKE_MATCH_1 STREQUAL want)
    set(CB_BEECRYPT_MISSING "${CMAKE_MATCH_2}")
  elseif(NOT have STREQUAL want OR NOT EXISTS ${CB_BEECRYPT_LIB} OR NOT EXISTS ${CB_BEECRYPT_ROOT}/build/config.h)
    cb_beecrypt_build(${CB_BEECRYPT_SOURCE} ${CB_BEECRYPT_ROOT} CB_BEECRYPT_MISSING)
    if(CB_BEECRYPT_MISSING)
      file(WRITE ${CB_BEECRYPT_STAMP} "${want}\n${CB_BEECRYPT_MISSING}\n")
    else()
      file(WRITE ${CB_BEECRYPT_STAMP} "${want}\n")
    endif()
  endif()
endif()

# BeeCrypt has no call that reports its version. The static library linked in is the one
# its configure described in config.h: that PACKAGE_VERSION is announced.
if(NOT CB_BEECRYPT_MISSING)
  file(STRINGS ${CB_BEECRYPT_ROOT}/build/config.h CB_BEECRYPT_BUILT_VERSION
       REGEX "^#define PACKAGE_VERSION \"[^\"]+\"$")
  string(REGEX REPLACE "^#define PACKAGE_VERSION \"([^\"]+)\"$" "\\1" CB_BEECRYPT_BUILT_VERSION
         "${CB_BEECRYPT_BUILT_VERSION}")
  if(NOT CB_BEECRYPT_BUILT_VERSION)
    set(CB_BEECRYPT_MISSING "BeeCrypt's build left no PACKAGE_VERSION in ${CB_BEECRYPT_ROOT}/build/config.h")
  endif()
  # The flags its configure chose, for the adapter's notes.
  file(STRINGS ${CB_BEECRYPT_ROOT}/build/Makefile CB_BEECRYPT_FLAGS REGEX "^(CC|CFLAGS|CPPFLAGS) = ")
  list(JOIN CB_BEECRYPT_FLAGS ", " CB_BEECRYPT_FLAGS)
  string(REGEX REPLACE " +" " " CB_BEECRYPT_FLAGS "${CB_BEECRYPT_FLAGS}")
  string(REPLACE "\"" "'" CB_BEECRYPT_FLAGS "${CB_BEECRYPT_FLAGS}")
endif()

if(CB_BEECRYPT_MISSING)
  set(CB_MISSING "${CB_BEECRYPT_MISSING}")
else()
  find_package(Threads REQUIRED)
  add_library(cb_beecrypt STATIC IMPORTED)
  set_target_properties(cb_beecrypt PROPERTIES IMPORTED_LOCATION ${CB_BEECRYPT_LIB}
    INTERFACE_INCLUDE_DIRECTORIES ${CB_BEECRYPT_ROOT}/install/include)
  set(CB_LIBS cb_beecrypt Threads::Threads ${CMAKE_DL_LIBS})
  set(CB_OPTIONS "-DCB_BEECRYPT_VERSION=\"${CB_BEECRYPT_BUILT_VERSION}\"" "-DCB_BEECRYPT_FLAGS=\"${CB_BEECRYPT_FLAGS}\"")
endif()
