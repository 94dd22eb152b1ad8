# make deb / make rpm: the same install tree as `make install`, under /usr.
set(CPACK_PACKAGE_NAME blaude)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "blaude")
set(CPACK_PACKAGE_CONTACT "Seed 8b99c046 maintainers <maintainers@users.noreply.a-seed-8b99c046.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "run Claude Code in a bubblewrap sandbox")
set(CPACK_PACKAGE_DESCRIPTION
    "blaude runs Claude Code with --dangerously-skip-permissions inside a\n"
    "bubblewrap sandbox, behind a terminal-aware supervisor that delivers OSC 52\n"
    "clipboard writes to the host clipboard and keeps asciinema recordings clean.\n"
    "It is a drop-in replacement for claude: every argument it does not know goes\n"
    "to Claude Code unchanged.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_GENERATOR DEB)

# Debian: dpkg-shlibdeps adds libc6 (the binary links only libc: the rest is static).
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "bubblewrap")
# passt: its pasta gives the sandbox a network namespace of its own on kernels before 6.12.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "xclip | xsel | wl-clipboard, passt")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)

# RPM (rpmbuild: Debian's `rpm` package, Fedora's rpm-build). The binary is stripped already;
# rpmbuild's own debuginfo extraction would find nothing to do.
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "unspecified")
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
set(CPACK_RPM_PACKAGE_REQUIRES "bubblewrap")
set(CPACK_RPM_PACKAGE_AUTOREQ ON)
set(CPACK_RPM_SPEC_MORE_DEFINE "%define debug_package %{nil}\nRecommends: (xclip or xsel or wl-clipboard)\nRecommends: passt")
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    /usr/share/bash-completion /usr/share/bash-completion/completions /usr/share/zsh
    /usr/share/zsh/site-functions /usr/share/zsh/vendor-completions /usr/share/fish /usr/share/fish/vendor_completions.d
    /usr/share/man/man1 /usr/share/doc)

# The lintian override only in the .deb (cpack_prebuild.cmake).
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/cpack_prebuild.cmake)

include(CPack)
