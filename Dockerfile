# membench as a static binary in a minimal image. The USE-lite model, the
# datasets and the results live on mounted volumes (MEMBENCH_HOME), not in
# the image. Build: docker build -t membench .   (see docs/scale.md)
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Pure Go (SQLite is modernc.org/sqlite), so the binary is static; the
# optional OpenBLAS path (-tags openblas) needs cgo and is not used here.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/membench ./cmd/membench

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/membench /usr/local/bin/membench
# Mount the model and datasets here (models/, datasets/) and the caches go
# under it too; results go wherever --results points (a shared volume).
ENV MEMBENCH_HOME=/membench
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/membench"]
CMD ["--help"]
