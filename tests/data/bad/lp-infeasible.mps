* x >= 2 and x <= 1: no feasible point
NAME          INFEAS
ROWS
 N  COST
 G  R1
 L  R2
COLUMNS
    X         COST         1.0   R1           1.0
    X         R2           1.0
RHS
    RHS       R1           2.0   R2           1.0
ENDATA
