# Checks that README contains EXAMPLE's text verbatim.
file(READ ${README} readme)
file(READ ${EXAMPLE} example)
string(FIND "${readme}" "${example}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${README} does not show ${EXAMPLE} as it is: copy the file into the README's C++ section")
endif()
message(STATUS "README shows ${EXAMPLE}")
