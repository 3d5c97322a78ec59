# The PETSc plugin's tests (label `petsc`; included by plugins/petsc/CMakeLists.txt):
# mpiexec -n 1, 2, 4 on the CPU with the example programs (examples/petsc/),
# checked by petsc_check.py. Small grids: the whole set runs in well under a
# minute on 2 cores. The ranks may outnumber the cores and CI may run as root:
# Open MPI is told so through the tests' environment only.
find_package(Python3 QUIET COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND OR NOT MPIEXEC_EXECUTABLE)
  message(STATUS "balsa: the PETSc plugin's tests need python3 and mpiexec: skipped")
  return()
endif()
set(check ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/petsc_check.py)
set(poisson $<TARGET_FILE:balsa_petsc_poisson>)
set(lstsq $<TARGET_FILE:balsa_petsc_lstsq>)
set(petsc_env "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1" "OMPI_MCA_rmaps_base_oversubscribe=1"
    "OMP_NUM_THREADS=1")
set(petsc_tests)
# mpiexec -n <np> with the rest
function(mpi_command out np)
  set(${out} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIEXEC_PREFLAGS} ${ARGN} PARENT_SCOPE)
endfunction()
function(petsc_test name)
  add_test(NAME petsc.${name} COMMAND ${ARGN})
  set(petsc_tests ${petsc_tests} petsc.${name} PARENT_SCOPE)
endfunction()

# The 2- and 4-rank answers equal the 1-rank answer (saved by the np1 test).
set(ref ${CMAKE_CURRENT_BINARY_DIR}/petsc-reference)
foreach(problem poisson convdiff)
  if(problem STREQUAL "poisson")
    set(opts -problem poisson -global_n 16 -ksp_type cg -pc_type bjacobi -sub_pc_type balsa -sub_pc_balsa_method ic0)
  else()
    set(opts -problem convdiff -peclet 50 -global_n 16 -ksp_type gmres -pc_type asm -sub_pc_type balsa
        -sub_pc_balsa_method ilu0)
  endif()
  mpi_command(cmd 1 ${poisson} ${opts} -save ${ref}-${problem}.bin)
  petsc_test(${problem}.np1 ${check} run --expect "CONVERGED_RTOL" -- ${cmd})
  set_tests_properties(petsc.${problem}.np1 PROPERTIES FIXTURES_SETUP petsc_${problem})
  foreach(np 2 4)
    mpi_command(cmd ${np} ${poisson} ${opts} -compare ${ref}-${problem}.bin -compare_tol 1e-6)
    petsc_test(${problem}.np${np} ${check} run --expect "difference from" -- ${cmd})
    set_tests_properties(petsc.${problem}.np${np} PROPERTIES FIXTURES_REQUIRED petsc_${problem})
  endforeach()
endforeach()

# Iterations within 10% of PETSc's own IC(0) / ILU(0) as the sub-PC, 4 ranks.
mpi_command(cmd 4 ${poisson} -global_n 24 -ksp_type cg -pc_type bjacobi)
petsc_test(iterations.icc.np4 ${check} iterations --within 0.1 -- ${cmd}
           --ours -sub_pc_type balsa -sub_pc_balsa_method ic0 --versus -sub_pc_type icc)
mpi_command(cmd 4 ${poisson} -problem convdiff -peclet 50 -global_n 24 -ksp_type gmres -pc_type asm)
petsc_test(iterations.ilu.np4 ${check} iterations --within 0.1 -- ${cmd}
           --ours -sub_pc_type balsa -sub_pc_balsa_method ilu0 --versus -sub_pc_type ilu)

# Same pattern, new values: update_values, the analysis kept (PCView says so).
petsc_test(update_values ${check} run --expect "builds 1, value updates 1" --expect "second solve .*CONVERGED_RTOL"
           -- ${poisson} -global_n 12 -ksp_type cg -pc_type balsa -pc_balsa_method ic0 -resolve -ksp_view)
# A new pattern: built again.
petsc_test(new_pattern ${check} run --expect "builds 2, value updates 0" --expect "second solve .*CONVERGED_RTOL"
           -- ${poisson} -global_n 12 -ksp_type cg -pc_type balsa -pc_balsa_method ic0 -resolve_new_pattern -ksp_view)

# The solver types: LU, Cholesky, QR (1 rank, and LU as bjacobi's sub-solver on 2).
foreach(type lu cholesky qr)
  petsc_test(solver.${type} ${check} run --expect "iterations 1, error [0-9.]+e-1[0-9]" --expect "type: balsa"
             -- ${poisson} -global_n 10 -ksp_type preonly -pc_type ${type} -pc_factor_mat_solver_type balsa -ksp_view)
endforeach()
mpi_command(cmd 2 ${poisson} -global_n 12 -ksp_type gmres -pc_type bjacobi -sub_pc_type lu
            -sub_pc_factor_mat_solver_type balsa)
petsc_test(solver.lu.bjacobi.np2 ${check} run --expect "CONVERGED_RTOL" -- ${cmd})
petsc_test(solver.qr.least_squares ${check} run --expect "optimality"
           -- ${lstsq} -ksp_type preonly -pc_type qr -pc_factor_mat_solver_type balsa)

# Registration through PETSc's dynamic libraries instead of the linked call.
petsc_test(dll_append ${check} run --expect "CONVERGED_RTOL"
           -- ${poisson} -global_n 12 -no_link_register -dll_append $<TARGET_FILE:balsa_petsc>
              -ksp_type cg -pc_type bjacobi -sub_pc_type balsa -sub_pc_balsa_method ic0)
petsc_test(without_registration ${check} run --fail --expect "Unknown type"
           -- ${poisson} -global_n 8 -no_link_register -pc_type balsa)

# Bad options and matrices: PETSc errors carrying balsa's message, non-zero exit.
petsc_test(error.unknown_method ${check} run --fail
           --expect "balsa: unknown preconditioner method 'foo' \\(one of: auto"
           -- ${poisson} -global_n 8 -pc_type bjacobi -sub_pc_type balsa -sub_pc_balsa_method foo)
petsc_test(error.unknown_trsv ${check} run --fail --expect "balsa: unknown triangular-solver algorithm 'bar'"
           -- ${poisson} -global_n 8 -pc_type balsa -pc_balsa_trsv bar)
petsc_test(error.unknown_device ${check} run --fail --expect "balsa: unknown device 'gpu'"
           -- ${poisson} -global_n 8 -pc_type balsa -pc_balsa_device gpu)
petsc_test(error.threads ${check} run --fail --expect "balsa: -pc_balsa_threads must be >= 0"
           -- ${poisson} -global_n 8 -pc_type balsa -pc_balsa_threads -2)
petsc_test(error.non_aij ${check} run --fail --expect "balsa: the balsa preconditioner needs an AIJ matrix.*seqbaij"
           -- ${poisson} -global_n 8 -pc_type balsa -dm_mat_type baij)
petsc_test(error.rectangular_lu ${check} run --fail --expect "balsa: DirectSolver needs a square matrix, got 800 x 400"
           -- ${lstsq} -ksp_type preonly -pc_type lu -pc_factor_mat_solver_type balsa)
# SaP as the sub-PC (the sparse pipeline on each rank's block): converges, PCView names it.
mpi_command(cmd 2 ${poisson} -problem convdiff -peclet 50 -global_n 16 -ksp_type gmres -pc_type bjacobi
            -sub_pc_type balsa -sub_pc_balsa_method sap-c -ksp_view)
petsc_test(sap_c.np2 ${check} run --expect "CONVERGED_RTOL" --expect "balsa: method sap-c" -- ${cmd})
petsc_test(sap_d ${check} run --expect "CONVERGED_RTOL" --expect "balsa: method sap-d"
           -- ${poisson} -global_n 12 -ksp_type gmres -pc_type balsa -pc_balsa_method sap-d -ksp_view)

set_tests_properties(${petsc_tests} PROPERTIES LABELS "cpu;petsc" ENVIRONMENT "${petsc_env}" TIMEOUT 120)
