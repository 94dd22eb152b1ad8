# Run by cpack for each package after it installed the files into its staging dir
# (CPACK_PRE_BUILD_SCRIPTS): the lintian override is Debian's; the .rpm does not carry it, nor
# the dirs made only for it (the package would own them).
if(CPACK_GENERATOR STREQUAL "RPM")
  file(GLOB_RECURSE overrides "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*/share/lintian/overrides/blaude")
  foreach(f IN LISTS overrides)
    file(REMOVE "${f}")
    get_filename_component(dir "${f}" DIRECTORY)
    foreach(up RANGE 1)
      file(GLOB left "${dir}/*")
      if(NOT left)
        file(REMOVE_RECURSE "${dir}")
      endif()
      get_filename_component(dir "${dir}" DIRECTORY)
    endforeach()
  endforeach()
endif()
