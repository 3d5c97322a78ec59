NAME          FREEROW
ROWS
 N  COST
 N  SPARE
 L  R1
COLUMNS
    X         COST      -1.0         R1        1.0
    X         SPARE     5.0
    Y         COST      -2.0         R1        1.0
    Y         SPARE     1.0
RHS
    RHS       R1        4.0
BOUNDS
 UP BND       X         3.0
ENDATA
