# Tests of the balsa command and of balsa-bench: exit codes, messages on
# stderr, files written.
set(BALSA_EXE $<TARGET_FILE:balsa_cli>)
set(BALSA_BENCH_EXE $<TARGET_FILE:balsa_bench_cli>)
set(DATA ${CMAKE_CURRENT_SOURCE_DIR}/data)
set(OUT ${CMAKE_CURRENT_BINARY_DIR}/cli-out)
file(MAKE_DIRECTORY ${OUT})

# balsa_cli_test(NAME [BENCH] ARGS ... [PASS regex] [NOT regex]): must succeed, stdout+stderr matching PASS
# (and not NOT); BENCH: run balsa-bench, not balsa.
# balsa_cli_test(NAME ARGS ... ERROR regex [EXIT code] [NOT regex]): must fail (with that
# exit code, if given), stderr matching ERROR (and not NOT).
# SETUP fixture: this test makes a file others read; NEEDS fixture: this test reads it.
function(balsa_cli_test name)
  cmake_parse_arguments(T "BENCH" "PASS;ERROR;EXIT;NOT;SETUP;NEEDS" "ARGS" ${ARGN})
  set(exe ${BALSA_EXE})
  if(T_BENCH)
    set(exe ${BALSA_BENCH_EXE})
  endif()
  if(DEFINED T_ERROR)
    add_test(NAME cli.${name} COMMAND ${CMAKE_COMMAND} -DEXE=${exe} "-DARGS=${T_ARGS}" "-DEXPECT=${T_ERROR}"
             "-DEXIT=${T_EXIT}" "-DREJECT=${T_NOT}"
             -P ${CMAKE_CURRENT_LIST_DIR}/cli_expect_error.cmake WORKING_DIRECTORY ${OUT})
  else()
    add_test(NAME cli.${name} COMMAND ${exe} ${T_ARGS} WORKING_DIRECTORY ${OUT})
  endif()
  set_tests_properties(cli.${name} PROPERTIES LABELS "cpu;cli" TIMEOUT 120)
  if(T_PASS)
    set_tests_properties(cli.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS}")
  endif()
  if(T_SETUP)
    set_tests_properties(cli.${name} PROPERTIES FIXTURES_SETUP ${T_SETUP})
  endif()
  if(T_NEEDS)
    set_tests_properties(cli.${name} PROPERTIES FIXTURES_REQUIRED ${T_NEEDS})
  endif()
  if(T_NOT AND NOT DEFINED T_ERROR)
    set_tests_properties(cli.${name} PROPERTIES FAIL_REGULAR_EXPRESSION "${T_NOT}")
  endif()
endfunction()

balsa_cli_test(help ARGS --help PASS "info.*gen.*convert.*trsv" NOT "bench")
balsa_cli_test(no_command ARGS --seed ERROR "subcommand|--seed")
balsa_cli_test(unknown_command ARGS frobnicate ERROR "balsa: error: unknown command .frobnicate. \\(commands: run, info, gen, convert, trsv")
balsa_cli_test(info ARGS info ${DATA}/bcsstk13.mtx
               PASS "2003 x 2003, 83883 nonzeros \\(42943 stored")
balsa_cli_test(info_json ARGS info --json ${DATA}/west0479.mtx
               PASS "\"balsa_version\": \"[0-9]+\\.[0-9]+\\.[0-9]+\".*\"nnz\": 1910.*\"read_seconds\"")
# The benchmarks are balsa-bench: balsa bench says so (usage error).
balsa_cli_test(bench_moved ARGS bench trsv --quick ERROR "balsa-bench trsv" EXIT 2)
balsa_cli_test(bench_help BENCH ARGS --help PASS "trsv.*solve.*banded.*qr.*sequence.*lp.*sparse.*direct")
balsa_cli_test(bench_unknown BENCH ARGS frobnicate ERROR "balsa-bench: error: unknown command .frobnicate." EXIT 2)
balsa_cli_test(info_missing_file ARGS info ${OUT}/no-such-file.mtx ERROR "balsa: error: cannot open .*no-such-file.mtx")
balsa_cli_test(gen_laplace3d ARGS gen laplace3d --nx 6 --ny 5 --nz 4 --stencil 27 -o ${OUT}/l3.mtx PASS "wrote 120 x 120")
balsa_cli_test(gen_lower ARGS gen laplace2d --nx 10 --triangle lower -o ${OUT}/l2.mtx PASS "wrote 100 x 100, 280 nonzeros")
balsa_cli_test(gen_symmetric ARGS gen random-spd -n 50 --per-row 4 --storage symmetric -o ${OUT}/spd.mtx PASS "wrote 50 x 50")
balsa_cli_test(gen_banded ARGS gen banded-lower --rows 1000 --window 50 --per-row 4 -o ${OUT}/b.mtx PASS "wrote 1000 x 1000")
balsa_cli_test(gen_block ARGS gen block-diagonal --blocks 4 --block-size 100 --density 0.05 -o ${OUT}/bd.mtx PASS "wrote 400 x 400")
balsa_cli_test(gen_chain ARGS gen chain -n 10 -o - PASS "%%MatrixMarket matrix coordinate real general")
balsa_cli_test(gen_star ARGS gen star -n 10 -o ${OUT}/star.mtx PASS "19 nonzeros")
balsa_cli_test(gen_dominant ARGS gen banded-dominant -n 100 -k 5 -d 0.5 -o ${OUT}/dd.mtx PASS "wrote 100 x 100, 1070 nonzeros")
balsa_cli_test(gen_bad_ordering ARGS gen laplace2d --nx 10 --ordering zigzag -o ${OUT}/x.mtx ERROR "--ordering.*zigzag")
balsa_cli_test(gen_too_big ARGS gen laplace3d --nx 2000 -o ${OUT}/x.mtx ERROR "balsa: error: .*does not fit balsa's 32-bit index")
balsa_cli_test(gen_missing_output ARGS gen chain -n 10 ERROR "--output is required")
balsa_cli_test(convert_lower ARGS convert ${DATA}/bcsstk13.mtx ${OUT}/bcsstk13_lower.mtx --triangle lower
               PASS "wrote 2003 x 2003, 42943 nonzeros")
balsa_cli_test(convert_strict_upper ARGS convert ${DATA}/bcsstk13.mtx ${OUT}/bcsstk13_su.mtx --triangle upper --strict
               PASS "40940 nonzeros")
balsa_cli_test(convert_keep_stored ARGS convert ${DATA}/bcsstk13.mtx ${OUT}/bcsstk13_stored.mtx --keep-stored
               PASS "42943 nonzeros")
balsa_cli_test(convert_symmetric ARGS convert ${DATA}/hangGlider_2.mtx ${OUT}/hg_sym.mtx --storage symmetric PASS "wrote 1647 x 1647")
balsa_cli_test(convert_not_symmetric ARGS convert ${DATA}/west0479.mtx ${OUT}/w.mtx --storage symmetric ERROR "balsa: error: .*mirror")
balsa_cli_test(convert_array ARGS convert ${DATA}/temp.mtx ${OUT}/temp_array.mtx --format array PASS "wrote 180 x 180")
balsa_cli_test(convert_bad_input ARGS convert ${DATA}/SOURCES.md ${OUT}/x.mtx ERROR "balsa: error: .*SOURCES.md:1: ")
balsa_cli_test(run_cpu ARGS run --grid 20 --device cpu --method pcg-ic0 PASS "pcg-ic0 in double on the CPU.*converged: [0-9]+ iterations, residual")
# The default, auto: what Auto predicted, what it tried, why, and the time to the answer.
balsa_cli_test(run_auto ARGS run --grid 12 --device cpu
               PASS "auto in double.*predicted +cholmod on cpu.*cholmod on cpu solved it.*plan: .*time to the answer")
balsa_cli_test(run_auto_json ARGS run --grid 8 --device cpu --json PASS "\"plan\": \\[.*\"requested_method\": \"auto\"")
balsa_cli_test(run_bad_method ARGS run --method umfpack ERROR "--method: unknown value .umfpack." EXIT 2)
balsa_cli_test(run_float ARGS run --grid 12 --stencil 27 --precision float --device cpu --method pcg-ic0 PASS "converged: [0-9]+ iterations")
# --threads on every command: 1 to the machine's hardware threads, else a usage error naming the limit.
balsa_cli_test(run_threads_one ARGS run --grid 12 --device cpu --threads 1 PASS "solved it")
balsa_cli_test(gen_threads_one ARGS gen chain -n 10 -o - --threads 1 PASS "%%MatrixMarket")
# --setup-trace on every command: the set-ups' timeline (balsa::set_setup_trace).
balsa_cli_test(run_setup_trace ARGS run --grid 12 --device cpu --method pcg-ic0 --setup-trace=-
               PASS "setup-trace 0 [0-9.]+ [0-9.]+ krylov: checks")
balsa_cli_test(setup_trace_unwritable ARGS run --grid 12 --device cpu --setup-trace ${OUT}/no-such-dir/trace.txt
               ERROR "cannot open .*no-such-dir/trace.txt")
balsa_cli_test(threads_zero ARGS run --grid 12 --threads 0
               ERROR "--threads: must be 1 to [0-9]+ \\(this machine's hardware threads\\), got '0'" EXIT 2)
balsa_cli_test(threads_too_many ARGS info ${DATA}/west0479.mtx --threads 100000
               ERROR "--threads: must be 1 to [0-9]+ \\(this machine's hardware threads\\), got '100000'" EXIT 2)
balsa_cli_test(run_not_converged ARGS run --grid 12 --device cpu --method pcg-ic0 --max-iterations 3
               ERROR "did not converge: max-iterations" EXIT 3)
# balsa solve: the Krylov solvers from the command line.
balsa_cli_test(solve_pcg_ic0 ARGS solve ${DATA}/bcsstk13.mtx --method pcg-ic0 --device cpu --max-iterations 5000 --rhs ax
               PASS "converged after [0-9]+ iterations.*error")
# The default, auto: balsa::solve's chain; what it tried and what solved it.
balsa_cli_test(solve_auto_spd ARGS solve ${DATA}/bcsstk13.mtx --rhs ax --device cpu
               PASS "features: symmetric, positive diagonal.*predicted +cholmod on cpu.*\\+ cholmod on cpu: solved, backward error.*cholmod on cpu solved it: backward error .*error")
balsa_cli_test(solve_auto_zero_diagonal ARGS solve ${DATA}/west0479.mtx --device cpu
               PASS "(klu|umfpack) on cpu solved it")
balsa_cli_test(solve_auto_json ARGS solve ${DATA}/west0479.mtx --device cpu --json
               PASS "\"chain\".*\"method\": \"(klu|umfpack)\".*\"outcome\": \"direct\".*\"plan\"")
balsa_cli_test(solve_named_iterative ARGS solve ${DATA}/west0479.mtx --method db-bicgstab2-ilu0 --device cpu
               PASS "\\+ db-bicgstab2-ilu0 on cpu: solved.*db-bicgstab2-ilu0 on cpu solved it")
balsa_cli_test(solve_time_budget_zero ARGS solve ${DATA}/west0479.mtx --time-budget 0 ERROR "--time-budget: must be a positive number" EXIT 2)
balsa_cli_test(solve_time_budget_negative ARGS solve ${DATA}/west0479.mtx --time-budget -1 ERROR "--time-budget" EXIT 2)
balsa_cli_test(solve_acceptance ARGS solve ${DATA}/west0479.mtx --device cpu --acceptance componentwise PASS "solved it")
balsa_cli_test(solve_direct_named ARGS solve ${DATA}/bcsstk13.mtx --method cholmod --device cpu PASS "\\+ cholmod on cpu: solved")
balsa_cli_test(solve_cholmod_not_spd ARGS solve ${DATA}/west0479.mtx --method cholmod --device cpu ERROR "not solved: .*cholmod" EXIT 3)
balsa_cli_test(solve_method_alone_fails ARGS solve ${DATA}/west0479.mtx --method db-bicgstab2-ilu0 --max-iterations 2 --device cpu
               ERROR "db-bicgstab2-ilu0: not solved: no method solved it: db-bicgstab2-ilu0: not converged after 2" EXIT 3)
balsa_cli_test(solve_fallback ARGS solve ${DATA}/west0479.mtx --method db-bicgstab2-ilu0 --max-iterations 2 --fallback --device cpu
               PASS "- db-bicgstab2-ilu0 on cpu: not converged.*(klu|umfpack) on cpu solved it \\(direct fallback\\)")
balsa_cli_test(solve_auto_json_direct ARGS solve ${DATA}/west0479.mtx --method umfpack --json --device cpu
               PASS "\"backward_error\".*\"method\": \"umfpack\".*\"outcome\": \"direct\"")
file(WRITE ${OUT}/struct_singular.mtx "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 1 2\n3 3 3\n1 3 4\n")
balsa_cli_test(solve_structurally_singular ARGS solve ${OUT}/struct_singular.mtx --device cpu
               ERROR "structurally singular, structural rank at most 2 .*column 2 \\(1-based, as in the file\\) holds none")
file(WRITE ${OUT}/num_singular.mtx "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1\n1 2 2\n2 1 1\n2 2 2\n3 3 3\n")
file(WRITE ${OUT}/num_singular_b.mtx "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n")
balsa_cli_test(solve_numerically_singular ARGS solve ${OUT}/num_singular.mtx --rhs ${OUT}/num_singular_b.mtx --device cpu
               ERROR "not solved: .*(umfpack|klu): .*numerically singular" EXIT 3)
balsa_cli_test(solve_bicgstab2 ARGS solve ${DATA}/cryg2500.mtx --method bicgstab2-ilu0 --device cpu --max-iterations 5000 -o ${OUT}/x.mtx
               PASS "converged after")
balsa_cli_test(solve_json ARGS solve ${DATA}/bcsstk13.mtx --device cpu --json --max-iterations 5000 PASS "\"iterations\"")
balsa_cli_test(solve_preset_json ARGS solve ${DATA}/bcsstk13.mtx --method pcg-ic0 --device cpu --json --max-iterations 5000
               PASS "\"balsa_version\".*\"stats\": {.*\"factor\": {.*\"analysis_seconds\".*\"setup_seconds\"" NOT "\"t_[a-z]+\":")
balsa_cli_test(solve_not_converged ARGS solve ${DATA}/bcsstk13.mtx --method pcg-ic0 --device cpu --max-iterations 3
               ERROR "pcg-ic0 did not converge: max-iterations" EXIT 3)
balsa_cli_test(solve_not_square ARGS solve ${DATA}/lp_e226.mtx --device cpu ERROR "square")
balsa_cli_test(solve_cg_nonsymmetric ARGS solve ${DATA}/west0479.mtx --method pcg-jacobi --device cpu ERROR "symmetric")
balsa_cli_test(solve_rhs_wrong_length ARGS solve ${DATA}/bcsstk13.mtx --rhs ${DATA}/temp.mtx --device cpu
               ERROR "temp.mtx: the right-hand side has 180 rows, the matrix 2003")
balsa_cli_test(solve_bad_method ARGS solve ${DATA}/bcsstk13.mtx --method qmr ERROR "--method")
# SaP's sparse pipeline (olm1000: half-bandwidth 3; west0479: zero diagonals, DB first).
balsa_cli_test(solve_sap_c ARGS solve ${DATA}/olm1000.mtx --method sap-c --partitions 4 --device cpu
  PASS "P = 4 .*T_DB.*converged after [0-9]+ iterations: residual [^ ]+ \\(2-norm")
balsa_cli_test(solve_sap_d_sparse ARGS solve ${DATA}/west0479.mtx --method sap-d --device cpu
  PASS "half-bandwidth [0-9]+ -> [0-9]+ after DB and CM.*converged after")
# --devices (SaP over several GPUs): a list with the CPU path, or one naming a GPU twice, is refused.
balsa_cli_test(solve_sap_devices_cpu ARGS solve ${DATA}/olm1000.mtx --method sap-c --device cpu --devices 0
  ERROR "devices \\(1 listed\\) need the GPU" EXIT 1)
balsa_cli_test(solve_sap_devices_twice ARGS solve ${DATA}/olm1000.mtx --method sap-d --devices 0,0
  ERROR "(listed twice|need the GPU)" EXIT 1)
balsa_cli_test(bench_banded_cpu BENCH ARGS banded --device cpu --suite grid --n 2000 --k 10 --repeat 1
  PASS "Grid speedup over dgbsv")
balsa_cli_test(bench_solve_quick BENCH ARGS solve --suite quick --device cpu --data-dir ${DATA} PASS "lap3d-7pt-20.*converged")
balsa_cli_test(run_bad_device ARGS run --device tpu ERROR "--device.*tpu")
balsa_cli_test(lsq_tall ARGS lsq ${DATA}/Franz6_id1959_aug.mtx -o ${OUT}/franz6_x.mtx
  PASS "rank 3016 of 3016.*A\\^T \\(b - A x\\)\\|\\| = [0-9.]+e-1[0-9].*x written")
balsa_cli_test(lsq_wide_min_norm ARGS lsq ${DATA}/lp_e226.mtx --ordering metis PASS "rank 223 of 223.*b - A x\\|\\| = [0-9.]+e-1[0-9]")
balsa_cli_test(qr_stats ARGS qr ${DATA}/bayer10.mtx --stats PASS "1190 column singletons.*fronts.*flops \\(staircase.*rank 13291 of 13436")
balsa_cli_test(lsq_wrong_b ARGS lsq ${DATA}/lp_e226.mtx ${DATA}/olm1000.mtx ERROR "olm1000.mtx: the right-hand side has 1000 rows, the matrix 223")
balsa_cli_test(bench_qr BENCH ARGS qr --data-dir ${DATA} --no-generated --repeat 1 PASS "Franz6.*\\| 3016 / 3016 / (3016|-) \\|")

balsa_cli_test(bench_sequence BENCH ARGS sequence --suite lp --lp-dir ${DATA} --steps 2 --no-multi --device cpu
               PASS "\\| lp:25fv47 \\| 821 \\| 5955 \\| 1 \\|.*\\| 2 \\| 0 \\| 0 \\| 0.0e\\+00 \\|")
balsa_cli_test(bench_sequence_bad_suite BENCH ARGS sequence --suite nope ERROR "--suite: nope not in" EXIT 2)

balsa_cli_test(info_not_mtx ARGS info ${DATA}/SOURCES.md ERROR "balsa: error: .*SOURCES.md:1: ")
balsa_cli_test(convert_transpose ARGS convert ${DATA}/lp_e226.mtx ${OUT}/lp_t.mtx --transpose PASS "wrote 472 x 223, 2768 nonzeros")
balsa_cli_test(convert_permute ARGS convert ${DATA}/west0479.mtx ${OUT}/w_perm.mtx --permute random --seed 3
               PASS "wrote 479 x 479, 1910 nonzeros")
balsa_cli_test(convert_pattern ARGS convert ${DATA}/cryg2500.mtx - --field pattern PASS "coordinate pattern general")
balsa_cli_test(convert_integer_bad ARGS convert ${DATA}/cryg2500.mtx ${OUT}/c.mtx --field integer ERROR "balsa: error: .*integ")
balsa_cli_test(convert_keep_stored_symmetric ARGS convert ${DATA}/bcsstk13.mtx ${OUT}/b13s.mtx --keep-stored --storage symmetric
               PASS "wrote 2003 x 2003, 83883 nonzeros")
balsa_cli_test(bench_trsv_quick BENCH ARGS trsv --quick --data-dir ${DATA} --json ${OUT}/bench.json
               --markdown ${OUT}/bench.md PASS "geomean")
# balsa trsv --explain: TASSL's metrics and the thesis' model on the CPU (no GPU needed).
balsa_cli_test(trsv_explain ARGS trsv ${DATA}/west0479.mtx --explain
               PASS "n_edges = 1361.*concurrency factor C \\(3.8\\) / \\(3.25\\) +0\\.889787.*thesis \\(Table 3.1.*TASSL \\(3.22\\)")
balsa_cli_test(trsv_explain_upper_float ARGS trsv ${DATA}/bcsstk13.mtx --triangle upper --precision float --n-max 256 --explain
               PASS "upper triangle, float.*levels \\(n_levels; TASSL: sub-graph levels\\) +577 .*level-set \\(3.6\\)")
balsa_cli_test(trsv_missing_file ARGS trsv ${OUT}/no-such-file.mtx --explain ERROR "balsa: error: cannot open .*no-such-file.mtx")
balsa_cli_test(trsv_not_square ARGS trsv ${DATA}/lp_e226.mtx --explain ERROR "balsa: error: .*223 x 472, not square")
balsa_cli_test(trsv_not_triangular ARGS trsv ${DATA}/west0479.mtx --device cpu
               ERROR "balsa: error: matrix is not lower triangular: entry at \\(row 1, column [0-9]+\\).*count from 1, as in the input file")

# ---- issue 22: inputs and messages found by outside testing ------------------------------
# Files made here: sizes a file declares but cannot hold, NaN values, values
# whose products overflow, a nonsymmetric matrix for CG.
file(WRITE ${OUT}/huge_array.mtx "%%MatrixMarket matrix array real general\n46340 46340\n1.0\n")
file(WRITE ${OUT}/nan.mtx "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 nan\n")
file(WRITE ${OUT}/tall_huge.mtx "%%MatrixMarket matrix coordinate real general\n2 1 2\n1 1 1e200\n2 1 1e200\n")
file(WRITE ${OUT}/b_huge.mtx "%%MatrixMarket matrix array real general\n2 1\n1e200\n-1e200\n")
file(WRITE ${OUT}/overflow.mtx "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1e300\n2 1 1e300\n2 2 1e300\n")
balsa_cli_test(huge_array ARGS info ${OUT}/huge_array.mtx ERROR "huge_array.mtx:2: .*2147395600" NOT "bad_alloc|out of host memory")
balsa_cli_test(nan_value ARGS info ${OUT}/nan.mtx ERROR "nan.mtx:4: .*not finite" NOT "allow_non_finite")
balsa_cli_test(cg_nonsymmetric_words ARGS solve ${DATA}/west0479.mtx --method cg --device cpu ERROR "symmetric"
               NOT "check_symmetry|allow_non_finite")
balsa_cli_test(tol_zero ARGS solve ${DATA}/bcsstk13.mtx --rtol 0 ERROR "--rtol: must be a positive number, got '0'" EXIT 2
               NOT "[0-9]{40}")
balsa_cli_test(run_tol_zero ARGS run --rtol 0 ERROR "--rtol: must be a positive number" EXIT 2)
balsa_cli_test(stagnation ARGS run --grid 10 --rtol 1e-300 --device cpu --method pcg-ic0 ERROR "stagnation.*attainable accuracy" EXIT 3
               NOT "preconditioner is not positive definite")
balsa_cli_test(lsq_residual_overflow ARGS lsq ${OUT}/tall_huge.mtx --rhs ${OUT}/b_huge.mtx
               ERROR "true residual of the solution x is inf" EXIT 1)
balsa_cli_test(solve_overflow ARGS solve ${OUT}/overflow.mtx --method cg --rhs ax --device cpu ERROR "non-finite|not finite|NaN or Inf")
# ---- issue 22: one command line -----------------------------------------------------------
balsa_cli_test(usage_unknown_option ARGS solve ${DATA}/bcsstk13.mtx --frobnicate ERROR "frobnicate" EXIT 2)
balsa_cli_test(usage_bad_enum ARGS solve ${DATA}/bcsstk13.mtx --trsv levelset
               ERROR "--trsv: unknown value 'levelset' \\(one of: auto, reference, level-set" EXIT 2)
balsa_cli_test(usage_bad_method_exit ARGS solve ${DATA}/bcsstk13.mtx --method qmr ERROR "--method" EXIT 2)
balsa_cli_test(help_plain ARGS solve --help PASS "--device NAME.*auto, cpu, cuda; default: auto" NOT "TEXT:|INT:|FLOAT:|REQUIRED|[0-9]{40}")
balsa_cli_test(bench_help_plain BENCH ARGS banded --help PASS "--n N" NOT "TEXT:|INT:|FLOAT:|REQUIRED|[0-9]{40}")
balsa_cli_test(run_json ARGS run --grid 8 --device cpu --json PASS "\"outcome\": \"converged\"")
balsa_cli_test(solve_x_to_stdout ARGS solve ${DATA}/bcsstk13.mtx --device cpu --max-iterations 5000 -o -
               PASS "%%MatrixMarket matrix array real general")
balsa_cli_test(solve_json_and_stdout ARGS solve ${DATA}/bcsstk13.mtx --device cpu --json -o - ERROR "standard output" EXIT 2)
string(REPEAT "1\n" 6009 ones_2003x3)
file(WRITE ${OUT}/ones_2003x3.mtx "%%MatrixMarket matrix array real general\n2003 3\n${ones_2003x3}")
balsa_cli_test(solve_many_rhs ARGS solve ${DATA}/bcsstk13.mtx --rhs ${OUT}/ones_2003x3.mtx --device cpu --max-iterations 5000
               -o ${OUT}/x_many.mtx PASS "cholmod on cpu solved it.*column 3: cholmod solved it.*once for 3 columns")
balsa_cli_test(solve_many_rhs_preset ARGS solve ${DATA}/bcsstk13.mtx --rhs ${OUT}/ones_2003x3.mtx --method pcg-ic0 --device cpu
               --max-iterations 5000 PASS "column 3: converged after")
balsa_cli_test(gen_triangle ARGS gen laplace2d --nx 20 --triangle lower -o ${OUT}/lap20_lower.mtx PASS "wrote 400 x 400"
               SETUP lap20_lower)
balsa_cli_test(trsv_solve ARGS trsv ${OUT}/lap20_lower.mtx --rhs ax --device cpu PASS "residual \\|\\|b - L x\\|\\| / \\|\\|b\\|\\| = [0-9.]+e-1[5-9], error" NEEDS lap20_lower)
balsa_cli_test(trsv_solve_upper_transpose ARGS trsv ${OUT}/lap20_lower.mtx --triangle upper --transpose --device cpu
               PASS "warning: .* [0-9]+ entries below the diagonal are ignored.*upper triangle transposed" NEEDS lap20_lower)
balsa_cli_test(trsv_solve_transpose_json ARGS trsv ${OUT}/lap20_lower.mtx --transpose --algorithm level-set --device cpu --json
               PASS "\"balsa_version\".*\"operation\": \"transpose\".*\"stats\": {.*\"algorithm\": \"level-set\".*\"analysis_seconds\".*\"last_solve_seconds\"" NEEDS lap20_lower)
balsa_cli_test(trsv_solve_rhs ARGS trsv ${OUT}/lap20_lower.mtx --rhs ${OUT}/lap20_lower.mtx -o ${OUT}/trsv_x.mtx --device cpu
               PASS "column 400: residual" NEEDS lap20_lower)
balsa_cli_test(trsv_solve_stdout ARGS trsv ${OUT}/lap20_lower.mtx --device cpu -o - PASS "%%MatrixMarket matrix array" NEEDS lap20_lower)
balsa_cli_test(lsq_rhs_option ARGS lsq ${DATA}/lp_e226.mtx --rhs ${DATA}/lp_e226.mtx --json PASS "\"columns\"")
balsa_cli_test(lsq_both_rhs ARGS lsq ${DATA}/lp_e226.mtx ${DATA}/lp_e226.mtx --rhs ${DATA}/lp_e226.mtx ERROR "give b once" EXIT 2)
balsa_cli_test(qr_json ARGS qr ${DATA}/bayer10.mtx --json PASS "\"rank\": 13291")
balsa_cli_test(qr_device_cpu ARGS qr ${DATA}/Franz6_id1959_aug.mtx --stats --device cpu PASS "device cpu\n")
balsa_cli_test(lsq_device_unknown ARGS lsq ${DATA}/lp_e226.mtx --device gpu ERROR "device" EXIT 2)
balsa_cli_test(info_gz ARGS info ${DATA}/west0479.mtx.gz PASS "479 x 479, 1910 nonzeros")
# balsa info on an MPS file (*.mps, *.mps.gz): the LP's sizes, kinds of rows and bounds.
balsa_cli_test(info_mps ARGS info ${DATA}/lp/afiro.mps.gz
               PASS "MPS linear program 'AFIRO'.*27 rows, 32 columns, 83 nonzeros.*minimize row 'COST', constant 0.*8 equality, 19 less, 0 greater, 0 ranged.*32 lower only")
balsa_cli_test(info_mps_json ARGS info --json ${DATA}/lp/boeing2.mps.gz
               PASS "\"format\": \"mps\".*\"nnz\": 1196.*\"ranged\": 19")
file(WRITE ${OUT}/bad.mps "NAME BAD\nROWS\n N OBJ\n L C1\nCOLUMNS\n X C1 1\n X C2 1\nENDATA\n")
balsa_cli_test(info_mps_malformed ARGS info ${OUT}/bad.mps ERROR "balsa: error: .*bad.mps:7: unknown row 'C2' in COLUMNS" EXIT 1)
balsa_cli_test(info_mps_missing ARGS info ${OUT}/no-such-file.mps ERROR "balsa: error: cannot open MPS file .*no-such-file.mps")
balsa_cli_test(convert_gz ARGS convert ${DATA}/west0479.mtx.gz ${OUT}/west_from_gz.mtx PASS "wrote 479 x 479, 1910 nonzeros")
balsa_cli_test(bench_banded_sweep_limits BENCH ARGS banded --device cpu --suite sweep --n 3000 --k 12 --d 1 --repeat 1
               --json - PASS "\"time_seconds\": [0-9].*\"suite\": \"sweep\".*\"balsa_version\"" NOT "\"N\": 200000")
balsa_cli_test(bench_two_stdout BENCH ARGS qr --no-generated --json - --markdown - ERROR "cannot both be '-'" EXIT 2)
balsa_cli_test(run_bad_stencil ARGS run --stencil 9 ERROR "--stencil: unknown value '9' \\(one of: 7, 27\\)" EXIT 2)
balsa_cli_test(gen_triangle_help ARGS gen laplace2d --help PASS "--triangle NAME +Keep only this triangle \\(lower, upper\\)")

# ---- balsa-bench sparse: the general-systems benchmark, small systems (seconds) ---------------
balsa_cli_test(bench_sparse_quick BENCH ARGS sparse --suite quick --data-dir ${DATA} --device cpu
               --json ${OUT}/bench_sparse.json --markdown ${OUT}/bench_sparse.md
               PASS "balsa's own iterative methods solve [0-9]+ of the [0-9]+ systems UMFPACK solves.*log2\\(T_baseline / T_balsa\\)"
               NOT "balsa: error")
balsa_cli_test(bench_sparse_rectangular BENCH ARGS sparse --suite real --data-dir ${DATA} --only lp_e226 --json -
               PASS "\"balsa_version\": .*\"budget_seconds\": .*\"reason\": \"rectangular \\(223 x 472\\)\"")
# ---- balsa reorder: SaP's DB and CM reorderings (include/balsa/reorder.hpp) -------------
balsa_cli_test(reorder_cm ARGS reorder ${DATA}/jagmesh7.mtx
               PASS "CM: half-bandwidth 903 -> [0-9]+, [0-9]+ start nodes tried in 1 connected components")
balsa_cli_test(reorder_rcm_json ARGS reorder ${DATA}/bcsstk13.mtx --rcm --json PASS "\"reverse\": true")
balsa_cli_test(reorder_db_rcm ARGS reorder ${DATA}/west0479.mtx --db --rcm
               PASS "DB: structural rank 479.*RCM: half-bandwidth")
balsa_cli_test(reorder_output ARGS reorder ${DATA}/west0479.mtx --rcm -o ${OUT}/west0479_rcm.mtx
               PASS "wrote 479 x 479, 1910 nonzeros")
balsa_cli_test(reorder_not_square ARGS reorder ${DATA}/lp_e226.mtx
               ERROR "lp_e226.mtx: the matrix is 223 x 472, a reordering needs a square one" EXIT 1)
balsa_cli_test(reorder_cm_and_rcm ARGS reorder ${DATA}/west0479.mtx --cm --rcm ERROR "--cm excludes --rcm" EXIT 2)
balsa_cli_test(reorder_bad_max_starts ARGS reorder ${DATA}/west0479.mtx --max-starts 0 ERROR "--max-starts" EXIT 2)
# balsa lp: the revised simplex on MPS files (issue 26).
balsa_cli_test(lp_afiro ARGS lp ${DATA}/lp/afiro.mps.gz --device cpu
               PASS "iteration +objective +primal inf.*dual phase 2.*status optimal, objective -464.753142857")
balsa_cli_test(lp_json ARGS lp ${DATA}/lp/kb2.mps.gz --device cpu --json
               PASS "\"balsa_version\".*\"stats\": {.*\"btran_seconds\".*\"status\": \"optimal\"")
balsa_cli_test(lp_infeasible ARGS lp ${DATA}/lp/itest2.mps.gz --device cpu ERROR "the linear program is infeasible" EXIT 3)
balsa_cli_test(lp_solution_file ARGS lp ${DATA}/lp/sc50a.mps.gz --device cpu -q -o ${OUT}/sc50a.sol SETUP lp_sol)
balsa_cli_test(lp_solution_read ARGS info ${OUT}/sc50a.sol NEEDS lp_sol ERROR "sc50a.sol:1: ")
balsa_cli_test(lp_missing ARGS lp ${OUT}/no-such.mps ERROR "balsa: error: .*no-such.mps")
balsa_cli_test(lp_not_mps ARGS lp ${DATA}/SOURCES.md ERROR "balsa: error: .*SOURCES.md:[0-9]+: ")
balsa_cli_test(lp_bad_device ARGS lp ${DATA}/lp/afiro.mps.gz --device gpu ERROR "--device" EXIT 2)
balsa_cli_test(bench_lp BENCH ARGS lp --dir ${DATA}/lp --only afiro,itest2 --no-gpu
               PASS "Status as the reference's: 2 of 2")
# ---- outputs written whole or not at all (issue 39 item 3, include/balsa/atomic_file.hpp) ----
# A write that fails part-way (a file-size limit), a read-only folder (not as root), an output that is a link
# to the input: the old file stays byte for byte and no temporary file is left; a success keeps permissions.
# More cases (an output that is an input, a missing folder) are in tests/data/bad/cases.tsv.
add_test(NAME cli.atomic_output COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/atomic_output_test.sh $<TARGET_FILE:balsa_cli>
         ${OUT}/atomic-output)
set_tests_properties(cli.atomic_output PROPERTIES LABELS "cpu;cli" TIMEOUT 120 PASS_REGULAR_EXPRESSION "all passed")
# ---- issue 39 item 2: no misleading success; one set of conventions in every command's messages ----
set(BAD ${DATA}/bad)
# The self-check uses the solve's operator: the unit diagonal (lap20's stored diagonal is 4) and the transpose.
balsa_cli_test(trsv_unit_selfcheck ARGS trsv ${OUT}/lap20_lower.mtx --unit-diagonal --rhs ax --device cpu
               PASS "unit diagonal.*residual \\|\\|b - L x\\|\\| / \\|\\|b\\|\\| = [0-9.]+e[-+][0-9]+, error [0-9.]+e-(0[6-9]|1[0-9])"
               NOT "error [0-9.]+e(\\+|-0[0-5])" NEEDS lap20_lower)
balsa_cli_test(trsv_unit_transpose_selfcheck ARGS trsv ${OUT}/lap20_lower.mtx --unit-diagonal --transpose --rhs ax --device cpu
               PASS "residual \\|\\|b - L\\^T x\\|\\| / \\|\\|b\\|\\| = [0-9.]+e[-+][0-9]+, error [0-9.]+e-(0[6-9]|1[0-9])"
               NOT "error [0-9.]+e(\\+|-0[0-5])" NEEDS lap20_lower)
# b = 0 gives x = 0, said as such, with no error line of 1.
balsa_cli_test(solve_zero_b ARGS solve ${BAD}/unit-lower.mtx --rhs ${BAD}/zero-b.mtx --device cpu PASS "b = 0: x = 0"
               NOT "error 1\\.0|[^a-z]nan|inf s")
balsa_cli_test(solve_zero_b_sap ARGS solve ${BAD}/unit-lower.mtx --rhs ${BAD}/zero-b.mtx --method sap-d --device cpu
               PASS "converged after 0 iterations.*b = 0: x = 0" NOT "error 1\\.0|[^a-z]nan|inf s")
# No NaN in a report line: the QR of an all-zero A (0 flops over 0 bytes).
balsa_cli_test(lsq_zero_no_nan ARGS lsq ${BAD}/all-zero.mtx --device cpu PASS "intensity 0;" NOT "[^a-z]nan|NaN")
balsa_cli_test(qr_zero_json_no_null ARGS qr ${BAD}/all-zero.mtx --device cpu --json PASS "\"intensity\": 0" NOT "null")
# --device cuda is named as the option in every command (on a GPU host the command runs instead).
balsa_cli_test(lp_device_cuda_named ARGS lp ${BAD}/lp-infeasible.mps --device cuda -q
               PASS "--device cuda: (no CUDA GPU found|balsa was built without CUDA)|^$" NOT "Device::")
balsa_cli_test(lsq_device_cuda_named ARGS lsq ${BAD}/unit-lower.mtx --device cuda
               PASS "--device cuda: (no CUDA GPU found|balsa was built without CUDA)|x\\|\\| =" NOT "Device::")
balsa_cli_test(qr_device_cuda_named ARGS qr ${BAD}/unit-lower.mtx --device cuda
               PASS "--device cuda: (no CUDA GPU found|balsa was built without CUDA)|balsa qr:" NOT "Device::")
# The chain's reasons count rows from 1 in the report too.
balsa_cli_test(solve_chain_reason_from_1 ARGS solve ${BAD}/zero-diagonal.mtx --device cpu
               ERROR "zero pivot at row 1 of A\\).*count from 1" EXIT 3 NOT "row 0")
# A singular (or ill-conditioned) A is said to be so when x fits b far from x_true; not for a well-solved one.
balsa_cli_test(solve_no_false_note ARGS solve ${DATA}/west0479.mtx --device cpu PASS "solved it" NOT "note:")
# lp -o -: the solution on standard output (the report on standard error), not a file named "-".
balsa_cli_test(lp_solution_stdout ARGS lp ${DATA}/lp/afiro.mps.gz -o - PASS "# balsa lp: AFIRO status optimal objective -464.7531428571")
balsa_cli_test(lp_solution_stdout_json ARGS lp ${DATA}/lp/afiro.mps.gz -o - --json ERROR "--json and -o - would both write to standard output" EXIT 2)
include(${CMAKE_CURRENT_LIST_DIR}/cli_checks.cmake)
