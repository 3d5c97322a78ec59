# Checks of the command line as a whole (issue 41), one ctest test each:
# tests/apps/cli_checks.py (the help's one name per idea, exit codes,
# warnings, -q, --json FILE, gzip outputs, the default right-hand side, the
# progress line).
set(BALSA_CLI_CHECKS help renamed lp_exit_codes lp_quiet warnings json_file gzip default_rhs progress
    progress_terminal qr_summary trsv_triangle)
foreach(check IN LISTS BALSA_CLI_CHECKS)
  add_test(NAME cli.check.${check}
    COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cli_checks.py --check ${check}
            --balsa $<TARGET_FILE:balsa_cli> --bench $<TARGET_FILE:balsa_bench_cli>
            --data ${CMAKE_CURRENT_SOURCE_DIR}/data --out ${CMAKE_CURRENT_BINARY_DIR}/cli-checks)
  set_tests_properties(cli.check.${check} PROPERTIES LABELS "cpu;cli" TIMEOUT 300)
endforeach()
