NAME          UNBOUND
ROWS
 N  COST
 G  R1
COLUMNS
    X         COST      -1.0         R1        1.0
    Y         COST      -1.0         R1        -1.0
RHS
    RHS       R1        1.0
ENDATA
