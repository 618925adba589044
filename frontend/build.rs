fn main() {
    lalrpop::Configuration::new().use_cargo_dir_conventions().process().expect("the lalrpop grammar must compile");
}
