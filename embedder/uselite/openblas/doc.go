// Package openblas is USE-lite's optional OpenBLAS path; built only with
// -tags openblas (and cgo).
package openblas
