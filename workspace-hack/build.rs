// Present so that cargo applies the build-dependencies section too.
fn main() {}
