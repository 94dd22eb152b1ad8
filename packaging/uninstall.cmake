# cmake -DMANIFEST=<build>/install_manifest.txt -P uninstall.cmake
# Removes the files the last `make install` / `cmake --install` wrote, as its manifest lists
# them (with DESTDIR already applied), and nothing else.
if(NOT EXISTS "${MANIFEST}")
  message(FATAL_ERROR "blaude: nothing to uninstall: ${MANIFEST} does not exist\n"
                      "Run make install (or cmake --install) from this build dir first.")
endif()
file(STRINGS "${MANIFEST}" files)
set(n 0)
foreach(f IN LISTS files)
  if(IS_SYMLINK "${f}" OR EXISTS "${f}")
    if(IS_DIRECTORY "${f}" AND NOT IS_SYMLINK "${f}")
      message(WARNING "blaude: ${f} is a directory now; left alone")
      continue()
    endif()
    file(REMOVE "${f}")
    message(STATUS "removed ${f}")
    math(EXPR n "${n} + 1")
  else()
    message(STATUS "already gone: ${f}")
  endif()
endforeach()
file(REMOVE "${MANIFEST}")
message(STATUS "blaude: uninstalled ${n} files")
