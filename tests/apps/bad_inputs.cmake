# The bad-input corpus: one ctest test bad.<name> per line of
# tests/data/bad/cases.tsv, run by tests/apps/bad_input.py (exit code,
# message, CPU time and peak memory of each case; the file's header says how).
set(BAD_CASES ${CMAKE_CURRENT_SOURCE_DIR}/data/bad/cases.tsv)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${BAD_CASES})
file(STRINGS ${BAD_CASES} bad_lines)
foreach(line IN LISTS bad_lines)
  if(line MATCHES "^[ \t]*#" OR line MATCHES "^[ \t]*$")
    continue()
  endif()
  string(REGEX MATCH "^[^\t]+" name "${line}")
  add_test(NAME bad.${name}
    COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/apps/bad_input.py --cases ${BAD_CASES} --case ${name}
            --balsa $<TARGET_FILE:balsa_cli> --bench $<TARGET_FILE:balsa_bench_cli> --out ${CMAKE_CURRENT_BINARY_DIR}/bad-out)
  set_tests_properties(bad.${name} PROPERTIES LABELS "cpu;cli;bad" TIMEOUT 60)
endforeach()
