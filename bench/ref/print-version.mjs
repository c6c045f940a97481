// Reference for the --version figure of the cold-start bench: a Node start that prints a constant.
process.stdout.write('0.1.0\n');
