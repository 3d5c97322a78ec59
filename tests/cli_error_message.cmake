# Runs `balsa info FILE` on a non-Matrix-Market file and checks that it fails
# with "balsa: error: FILE:1: ..." on stderr.
execute_process(COMMAND ${EXE} info ${FILE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "expected a nonzero exit code, got 0")
endif()
string(FIND "${err}" "balsa: error: ${FILE}:1:" at)
if(at EQUAL -1)
  message(FATAL_ERROR "stderr does not name the file and line 1: ${err}")
endif()
message(STATUS "ok: ${err}")
