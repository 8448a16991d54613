module roundbench

go 1.24
